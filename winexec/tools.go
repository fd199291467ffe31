package winexec

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// Tool names. They match ^[a-zA-Z0-9_-]{1,64}$, the strictest rule among
// MCP hosts: Claude Desktop withholds a server's whole tool list when one
// name fails it, and OpenAI function names and Codex reject dots.
const (
	ToolExec     = "win_exec"
	ToolWSLToWin = "path_wsl_to_win"
	ToolWinToWSL = "path_win_to_wsl"
)

// ToolOptions configure the MCP tools of AddTools.
type ToolOptions struct {
	// DottedNames names the tools win.exec, path.wsl_to_win and
	// path.win_to_wsl, the spelling of earlier releases, for clients
	// configured with those names. Hosts that enforce
	// ^[a-zA-Z0-9_-]{1,64}$ (Claude Desktop, OpenAI, Codex) reject it.
	DottedNames bool
}

// ToolName returns name, one of the Tool constants, as registered under
// opts: with DottedNames its first underscore becomes a dot.
func (o *ToolOptions) ToolName(name string) string {
	if o != nil && o.DottedNames {
		return strings.Replace(name, "_", ".", 1)
	}
	return name
}

// ExecInput are the arguments of win_exec.
type ExecInput struct {
	Exe       string            `json:"exe" jsonschema_description:"the program: a name such as hdc.exe or cmd.exe (allowed by ALLOW_EXE) or a Windows or WSL path"`
	Args      []string          `json:"args,omitempty" jsonschema_description:"arguments passed to the program exactly as given (quoted for Windows with the MSVCRT rules)"`
	Cwd       string            `json:"cwd,omitempty" jsonschema_description:"working directory in Windows or WSL form; default: a Windows directory"`
	TimeoutMs int               `json:"timeoutMs,omitempty" jsonschema:"minimum=0" jsonschema_description:"milliseconds before the whole process tree is killed; default DEFAULT_TIMEOUT_MS; larger values are lowered to the server's MAX_TIMEOUT_MS"`
	Env       map[string]string `json:"env,omitempty" jsonschema_description:"environment variables for the program (only names the server allows)"`
	Stdin     string            `json:"stdin,omitempty" jsonschema_description:"text written to the program's standard input"`
}

// ExecOutput is the structured result of win_exec.
type ExecOutput struct {
	ExitCode   int         `json:"exitCode"`
	Stdout     string      `json:"stdout"`
	Stderr     string      `json:"stderr"`
	DurationMs int64       `json:"durationMs"`
	TimedOut   bool        `json:"timedOut"`
	Truncated  bool        `json:"truncated"`
	Command    ExecCommand `json:"command"`
}

// ExecCommand echoes what was run.
type ExecCommand struct {
	Exe  string   `json:"exe"`
	Args []string `json:"args"`
	Cwd  string   `json:"cwd,omitempty"`
}

// PathInput is the argument of the path tools.
type PathInput struct {
	Path string `json:"path" jsonschema_description:"the path to convert"`
}

// PathOutput is the result of the path tools.
type PathOutput struct {
	Path string `json:"path"`
}

// runExec is win_exec's whole decision on a request and its run: the
// reservations of Executor.Reserve, then Run. One function, so that
// FuzzExecutorDecision fuzzes what the tool does.
func (e *Executor) runExec(ctx context.Context, r Request) (*Result, error) {
	if err := e.checkReserved(r.Exe); err != nil {
		return nil, err
	}
	return e.Run(ctx, r)
}

// AddTools registers win_exec, path_wsl_to_win and path_win_to_wsl on srv,
// running programs with ex.
func AddTools(srv *mcp.Server, ex *Executor, opts *ToolOptions) {
	mcp.AddTool(srv, &mcp.Tool{
		Name:  opts.ToolName(ToolExec),
		Title: "Run a Windows program",
		Description: "Runs a Windows program (from WSL) or a local one with an exact argument list and returns " +
			"its exit code, stdout and stderr. Only programs allowed by the server's ALLOW_EXE setting run. " +
			"A timeout kills the whole process tree. isError is set for a non-zero exit code or a timeout. " +
			"cmd.exe: ONE argument after /C (or /K) is a command in cmd.exe syntax, e.g. [\"/C\",\"dir | findstr x\"]; " +
			"SEVERAL arguments after /C are literal tokens that reach the program unchanged, e.g. [\"/C\",\"echo\",\"a&b\"] prints a&b. " +
			"Only the switches /D /Q /S /A /U /E: /F: /V: may precede /C.",
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: mcp.Ptr(true), DestructiveHint: mcp.Ptr(true)},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in ExecInput) (*mcp.CallToolResult, ExecOutput, error) {
		r := Request{Exe: in.Exe, Args: in.Args, Cwd: in.Cwd, Env: in.Env, Timeout: time.Duration(in.TimeoutMs) * time.Millisecond}
		if in.Stdin != "" {
			r.Stdin = []byte(in.Stdin)
		}
		res, err := ex.runExec(ctx, r)
		if err != nil {
			// A *NotAllowedError says already which setting allows it.
			return nil, ExecOutput{}, err
		}
		out := ExecOutput{
			ExitCode:   res.ExitCode,
			Stdout:     res.StdoutText(),
			Stderr:     res.StderrText(),
			DurationMs: res.Duration.Milliseconds(),
			TimedOut:   res.TimedOut,
			Truncated:  res.Truncated(),
			Command:    ExecCommand{Exe: in.Exe, Args: nonNilArgs(in.Args), Cwd: in.Cwd},
		}
		if res.ExitCode != 0 || res.TimedOut {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: summary(out)}}}, out, nil
		}
		return nil, out, nil
	})
	path := func(name, title, desc string, conv func(string) (string, error)) {
		mcp.AddTool(srv, &mcp.Tool{
			Name: opts.ToolName(name), Title: title, Description: desc,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Ptr(true), IdempotentHint: mcp.Ptr(true), OpenWorldHint: mcp.Ptr(false)},
		}, func(ctx context.Context, req *mcp.CallToolRequest, in PathInput) (*mcp.CallToolResult, PathOutput, error) {
			p, err := conv(in.Path)
			if err != nil {
				return nil, PathOutput{}, err
			}
			return nil, PathOutput{Path: p}, nil
		})
	}
	path(ToolWSLToWin, "WSL path to Windows path",
		`Converts a WSL (Linux) path to the Windows path of the same file: /mnt/c/x -> C:\x, other paths -> \\wsl.localhost\<distro>\... An absolute path with a ".." component is refused: Linux resolves it from where a symbolic link led, Windows lexically.`, pathToolWSLToWin)
	path(ToolWinToWSL, "Windows path to WSL path",
		`Converts a Windows path to the WSL (Linux) path of the same file: C:\x -> /mnt/c/x, \\wsl.localhost\<distro>\x and \\wsl$\<distro>\x -> /x. "." and ".." are applied and trailing dots and spaces of a name dropped first, as Windows does.`, pathToolWinToWSL)
}

// pathToolWSLToWin is path_wsl_to_win: WSLToWin of an absolute path
// without "." components and refused with a ".." one. Linux resolves ".."
// from where a symbolic link led and Windows lexically, so no Windows
// path names the file /mnt/c/link/../x names; and WSLToWin alone turned
// /mnt/c/../../etc/passwd (/etc/passwd) into C:\..\..\etc\passwd, which
// Windows reads as C:\etc\passwd.
func pathToolWSLToWin(p string) (string, error) {
	if !strings.HasPrefix(p, "/") {
		return WSLToWin(p)
	}
	if strings.Contains(p, `\`) {
		// WSLToWin would return it unchanged as a Windows path, which
		// Windows reads on the current drive; a Linux name holding a
		// backslash has no Windows spelling.
		return "", fmt.Errorf("%w: %q: a backslash in a Linux path has no Windows spelling", ErrPathNotMappable, p)
	}
	var kept []string
	for _, c := range strings.Split(p, "/") {
		switch c {
		case "", ".":
		case "..":
			return "", fmt.Errorf("%w: %q has a \"..\" component, which Linux resolves from where a symbolic link led and Windows lexically; give the path without it", ErrPathNotMappable, p)
		default:
			kept = append(kept, c)
		}
	}
	return WSLToWin("/" + strings.Join(kept, "/"))
}

// pathToolWinToWSL is path_win_to_wsl: WinToWSL of the path Windows opens.
// Windows applies "." and ".." lexically (never above the drive or the
// share) and drops the trailing dots and spaces of each name, so
// C:\x\..\..\etc\passwd is C:\etc\passwd, which WinToWSL alone turned into
// /mnt/c/x/../../etc/passwd, Linux's /etc/passwd. A \\?\ path is not
// normalized by Windows: one with such components is refused.
func pathToolWinToWSL(p string) (string, error) {
	if !IsWindowsPath(p) {
		return WinToWSL(p)
	}
	q := p
	verbatim := strings.HasPrefix(q, `\\?\`)
	if !verbatim {
		q = strings.ReplaceAll(q, "/", `\`)
	}
	var root, rest string
	switch body := strings.TrimPrefix(q, `\\?\`); {
	case isDrivePath(body):
		root, rest = q[:len(q)-len(body)+2], body[2:]
	case !verbatim && strings.HasPrefix(q, `\\`):
		parts := strings.SplitN(q[2:], `\`, 3)
		if len(parts) < 2 {
			return WinToWSL(p)
		}
		root = `\\` + parts[0] + `\` + parts[1]
		if len(parts) == 3 {
			rest = parts[2]
		}
	case verbatim:
		// \\?\UNC\host\share and other NT paths: WinToWSL would return
		// their text as a relative Linux path.
		return "", fmt.Errorf("%w: %q", ErrPathNotMappable, p)
	default:
		return WinToWSL(p)
	}
	var kept []string
	for _, c := range strings.Split(rest, `\`) {
		trimmed := strings.TrimRight(c, ". ")
		switch {
		case c == "":
		case verbatim && (trimmed != c):
			return "", fmt.Errorf("%w: %q: Windows does not normalize a \\\\?\\ path, and %q names no file there", ErrPathNotMappable, p, c)
		case c == ".":
		case c == "..":
			if len(kept) > 0 {
				kept = kept[:len(kept)-1]
			}
		case trimmed == "":
			return "", fmt.Errorf("%w: %q: the name %q is all dots and spaces, which Windows drops", ErrPathNotMappable, p, c)
		default:
			kept = append(kept, trimmed)
		}
	}
	return WinToWSL(root + `\` + strings.Join(kept, `\`))
}

func nonNilArgs(a []string) []string {
	if a == nil {
		return []string{}
	}
	return a
}

// summary is the text a model reads for a failed run.
func summary(o ExecOutput) string {
	var b strings.Builder
	if o.TimedOut {
		fmt.Fprintf(&b, "%s timed out after %d ms; the process tree was killed.\n", o.Command.Exe, o.DurationMs)
	} else {
		fmt.Fprintf(&b, "%s exited with code %d.\n", o.Command.Exe, o.ExitCode)
	}
	if o.Stdout != "" {
		fmt.Fprintf(&b, "stdout:\n%s\n", o.Stdout)
	}
	if o.Stderr != "" {
		fmt.Fprintf(&b, "stderr:\n%s\n", o.Stderr)
	}
	return b.String()
}
