package hdc

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/winbridge/winbridge/internal/termtext"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/winexec"
)

// Options configure the tools of AddTools.
type Options struct {
	// DottedNames names the tools hdc.run, hdc.shell..., the spelling of
	// earlier releases, instead of hdc_run, hdc_shell..., for clients
	// configured with those names. Hosts that enforce
	// ^[a-zA-Z0-9_-]{1,64}$ (Claude Desktop, OpenAI, Codex) reject it.
	DottedNames bool

	// Exe is the hdc program. Empty means the executor's Config.HDCExe
	// (HDC_EXE), else "hdc.exe" when programs run on Windows (WSL, a
	// launcher, the PowerShell and direct backends, or a Windows host) and
	// "hdc" otherwise.
	Exe string

	// Env is added to the environment of every hdc run, e.g.
	// OHOS_HDC_SERVER_PORT. The executor's policy must allow the names
	// (ALLOW_ENV).
	Env map[string]string

	// LocalPath turns an absolute local path in Linux form into the form
	// hdc understands. Nil means winexec.WSLToWin when hdc is a Windows
	// program and the path unchanged otherwise. Tests under wine map to
	// Z:\ with it.
	LocalPath func(string) (string, error)

	// LocalRoots are directories of this machine whose files
	// hdc_file_send may copy to a device without confirm: true (Linux
	// form, or Windows drive paths, which are read as their /mnt/X
	// form). Any other file needs confirm, since hdc_shell reads what
	// was sent back to the model: a private key or a token file would
	// leave the machine. A path is judged as hdc opens it, symbolic links
	// resolved; a directory only when nothing under it leads outside.
	// Nil means none: every send needs confirm.
	LocalRoots []string
}

// ToolName returns name, one of the Tool constants, as registered under o:
// with DottedNames its first underscore becomes a dot.
func (o *Options) ToolName(name string) string {
	if o != nil && o.DottedNames {
		return strings.Replace(name, "_", ".", 1)
	}
	return name
}

// programNames are the file names hdc's client ships under: hdc (hdc.exe
// on Windows) and hdc_std, the OpenHarmony SDK's older name. AddTools
// reserves each of them on the executor besides its own program, so
// that win_exec runs none (see winexec.Executor.Reserve). A copy under
// another name is not recognised.
var programNames = []string{"hdc", "hdc_std"}

// Tool names. They match ^[a-zA-Z0-9_-]{1,64}$, the strictest rule among
// MCP hosts (with Options.DottedNames, hdc.run...).
const (
	ToolRun         = "hdc_run"
	ToolShell       = "hdc_shell"
	ToolListTargets = "hdc_list_targets"
	ToolFileSend    = "hdc_file_send"
	ToolFileRecv    = "hdc_file_recv"
	ToolHilog       = "hdc_hilog"
	ToolInstall     = "hdc_install"
	ToolUninstall   = "hdc_uninstall"
)

// Result is the structured result of every hdc tool.
type Result struct {
	// ExitCode is, for hdc_shell and hdc_hilog, the exit status of the
	// command on the device (-1 when it is unknown because the command
	// did not finish: hdc failed or the call timed out); for the other
	// tools, hdc's own exit code, which real hdc always leaves at 0.
	ExitCode int `json:"exitCode"`
	// Stdout is hdc's standard output, which carries the device's output
	// (stdout and stderr merged on the device); the shell sentinel is
	// removed.
	Stdout string `json:"stdout"`
	// Stderr is hdc's own standard error on the host.
	Stderr     string `json:"stderr"`
	DurationMs int64  `json:"durationMs"`
	// TimedOut reports that hdc was killed after timeoutMs.
	TimedOut bool `json:"timedOut"`
	// FailCode is the code of a [Fail] line hdc printed (E005005...),
	// "FAIL" for one without a code.
	FailCode string `json:"failCode,omitempty"`
	// FailMessage is the [Fail] line itself.
	FailMessage string `json:"failMessage,omitempty"`
	// Argv is the exact program and arguments run (or, with dryRun, that
	// would run).
	Argv []string `json:"argv"`
	// DryRun reports that nothing ran.
	DryRun bool `json:"dryRun,omitempty"`
	// HostExitCode is the exit code of the hdc process itself.
	HostExitCode int `json:"hostExitCode"`
	// DeviceCommand is, for the shell tools, the script the device's sh
	// runs (before encoding).
	DeviceCommand string `json:"deviceCommand,omitempty"`
	// Encoded reports that DeviceCommand travelled base64-encoded.
	Encoded bool `json:"encoded,omitempty"`
	// Truncated reports that output beyond the server's cap was dropped
	// from the middle.
	Truncated bool `json:"truncated,omitempty"`
	// Targets are, for hdc_list_targets, the devices listed ([] for
	// none); for the several-devices error, the connected keys.
	Targets []Target `json:"targets,omitzero"`
}

// RunInput are the arguments of hdc_run.
type RunInput struct {
	Args       []string `json:"args" jsonschema_description:"hdc arguments after the program name, each passed as one argument, e.g. [\"list\",\"targets\",\"-v\"] or [\"shell\",\"ls /data | wc -l\"]"`
	ConnectKey string   `json:"connectKey,omitempty" jsonschema_description:"device to use (-t KEY): a USB serial or IP:port as the list-targets tool shows it (letters digits and . _ : / % [ ] - only; at most 32); required when several devices are connected"`
	TimeoutMs  int      `json:"timeoutMs,omitempty" jsonschema:"minimum=0" jsonschema_description:"milliseconds before hdc is killed; default: the server's DEFAULT_TIMEOUT_MS"`
	Confirm    bool     `json:"confirm,omitempty" jsonschema_description:"must be true to run a command that changes the device or the hdc server (install uninstall kill start -r target boot tmode smode fport rport tconn...), copies files between this machine and the device (file send, file recv), or global options other than -t -l -p -v -h and -s with a loopback address"`
	DryRun     bool     `json:"dryRun,omitempty" jsonschema_description:"return the exact argv without running anything"`
}

// ShellInput are the arguments of hdc_shell.
type ShellInput struct {
	ConnectKey string `json:"connectKey,omitempty" jsonschema_description:"device to use (-t KEY): a USB serial or IP:port as the list-targets tool shows it (letters digits and . _ : / % [ ] - only; at most 32); required when several devices are connected"`
	Command    string `json:"command" jsonschema_description:"a shell command line run on the device by sh -c, pipes and all, e.g. ls /data | grep log | wc -l"`
	TimeoutMs  int    `json:"timeoutMs,omitempty" jsonschema:"minimum=0" jsonschema_description:"milliseconds before hdc is killed; default: the server's DEFAULT_TIMEOUT_MS"`
	UseBusybox bool   `json:"useBusybox,omitempty" jsonschema_description:"run common tools (ls grep sed awk find ps...) through busybox instead of the device's toybox; fails clearly if the device has no busybox"`
	DryRun     bool   `json:"dryRun,omitempty" jsonschema_description:"return the exact argv without running anything"`
}

// ListTargetsInput are the arguments of hdc_list_targets.
type ListTargetsInput struct {
	Verbose   bool `json:"verbose,omitempty" jsonschema_description:"list every known device with connection type, state and name (list targets -v); otherwise only the keys of connected devices"`
	TimeoutMs int  `json:"timeoutMs,omitempty" jsonschema:"minimum=0" jsonschema_description:"milliseconds before hdc is killed"`
}

// FileInput are the arguments of hdc_file_send and hdc_file_recv.
type FileInput struct {
	ConnectKey string `json:"connectKey,omitempty" jsonschema_description:"device to use (-t KEY): a USB serial or IP:port as the list-targets tool shows it (letters digits and . _ : / % [ ] - only; at most 32); required when several devices are connected"`
	Local      string `json:"local" jsonschema_description:"path on this machine, in WSL/Linux form (/home/u/a.txt, /mnt/c/x) or Windows form (C:\\x); relative paths are relative to the MCP server's working directory"`
	Remote     string `json:"remote" jsonschema_description:"path on the device, e.g. /data/local/tmp/a.txt"`
	TimeoutMs  int    `json:"timeoutMs,omitempty" jsonschema:"minimum=0" jsonschema_description:"milliseconds before hdc is killed"`
	DryRun     bool   `json:"dryRun,omitempty" jsonschema_description:"return the exact argv without running anything"`
	Confirm    bool   `json:"confirm,omitempty" jsonschema_description:"file_recv: required, the copy writes a file of this machine; file_send: required unless the local file is inside the server's configured local roots, since the device copy can be read back"`
}

// HilogInput are the arguments of hdc_hilog.
type HilogInput struct {
	ConnectKey string `json:"connectKey,omitempty" jsonschema_description:"device to use (-t KEY): a USB serial or IP:port as the list-targets tool shows it (letters digits and . _ : / % [ ] - only; at most 32); required when several devices are connected"`
	Lines      int    `json:"lines,omitempty" jsonschema:"minimum=0,maximum=100000" jsonschema_description:"how many of the last log lines to return; default 200"`
	Filter     string `json:"filter,omitempty" jsonschema_description:"keep only lines containing this text (fixed string, not a pattern)"`
	TimeoutMs  int    `json:"timeoutMs,omitempty" jsonschema:"minimum=0" jsonschema_description:"milliseconds before hdc is killed"`
	DryRun     bool   `json:"dryRun,omitempty" jsonschema_description:"return the exact argv without running anything"`
}

// InstallInput are the arguments of hdc_install.
type InstallInput struct {
	ConnectKey string `json:"connectKey,omitempty" jsonschema_description:"device to use (-t KEY): a USB serial or IP:port as the list-targets tool shows it (letters digits and . _ : / % [ ] - only; at most 32); required when several devices are connected"`
	Path       string `json:"path" jsonschema_description:"the .hap/.hsp on this machine, in WSL/Linux or Windows form"`
	Replace    bool   `json:"replace,omitempty" jsonschema_description:"replace an installed application (install -r)"`
	TimeoutMs  int    `json:"timeoutMs,omitempty" jsonschema:"minimum=0" jsonschema_description:"milliseconds before hdc is killed"`
	Confirm    bool   `json:"confirm,omitempty" jsonschema_description:"must be true: installing changes the device"`
	DryRun     bool   `json:"dryRun,omitempty" jsonschema_description:"return the exact argv without running anything"`
}

// UninstallInput are the arguments of hdc_uninstall.
type UninstallInput struct {
	ConnectKey string `json:"connectKey,omitempty" jsonschema_description:"device to use (-t KEY): a USB serial or IP:port as the list-targets tool shows it (letters digits and . _ : / % [ ] - only; at most 32); required when several devices are connected"`
	Bundle     string `json:"bundle" jsonschema_description:"bundle name, e.g. com.example.app"`
	KeepData   bool   `json:"keepData,omitempty" jsonschema_description:"keep the application's data (uninstall -k)"`
	TimeoutMs  int    `json:"timeoutMs,omitempty" jsonschema:"minimum=0" jsonschema_description:"milliseconds before hdc is killed"`
	Confirm    bool   `json:"confirm,omitempty" jsonschema_description:"must be true: uninstalling changes the device"`
	DryRun     bool   `json:"dryRun,omitempty" jsonschema_description:"return the exact argv without running anything"`
}

// DefaultHilogLines is the number of log lines hdc_hilog returns by
// default.
const DefaultHilogLines = 200

// MaxWire bounds the length of the device command sent through hdc
// shell; a Windows command line holds at most 32,767 characters.
const MaxWire = 30000

const confirmRule = " hdc takes the first hdc command at any position in args as its command (also two words in " +
	"one element, such as \"target boot\"), and re-splits the elements before it into global options. Commands that " +
	"change the device, the hdc server or this machine (install, uninstall, sideload, target boot, target mount, " +
	"smode, tmode, kill, killall-sub, spawn-sub, keygen, tconn, reconnect, update, flash, erase, format, start with " +
	"-r anywhere, fport and rport other than fport ls, file send, file recv, bugreport with a path) and global options " +
	"other than -t KEY, -l N, -p, -v, -h, -f and -s with a loopback address run only with confirm: true; " +
	"dryRun: true returns the exact argv without running anything. hilog parse (run by hdc on this machine " +
	"through a shell) is always refused. connectKey and -t values must look like a device key."

const resultRule = " The result holds exitCode, stdout, stderr, durationMs, timedOut, failCode (when hdc printed " +
	"[Fail]) and argv; isError is set when hdc reported [Fail], the device command failed or the call timed out. " +
	"Without connectKey while several devices are connected, the call fails and lists their keys."

// toolset holds what every hdc tool needs.
type toolset struct {
	ex        *winexec.Executor
	exe       string
	env       map[string]string
	windows   bool
	localPath func(string) (string, error)
	roots     []string // Options.LocalRoots
	newNonce  func() string
	names     *Options // spells the tool names in messages
}

// AddTools registers the hdc tools on srv, running hdc through ex:
// hdc_run, hdc_shell, hdc_list_targets, hdc_file_send, hdc_file_recv,
// hdc_hilog, hdc_install and hdc_uninstall (hdc.run... with
// opts.DottedNames). opts may be nil. It panics when the hdc program
// (opts.Exe, or DefaultExe) is not a valid program name, as mcp.AddTool
// does on an invalid tool: configuration loading refuses such a name.
func AddTools(srv *mcp.Server, ex *winexec.Executor, opts *Options) {
	t := newToolset(ex, opts)
	// win_exec on the same executor would run hdc without the checks
	// below (confirm, connectKey, hilog parse). An invalid name reserves
	// nothing, and tools that cannot run hdc beside a win_exec that can
	// would only look guarded: fail loudly.
	if err := ex.Reserve(t.exe, opts.ToolName(ToolRun)); err != nil {
		panic(fmt.Sprintf("hdc: AddTools: %v", err))
	}
	// The reservation goes by file name, and hdc ships under more than
	// one: with HDC_EXE naming hdc_std.exe, an hdc.exe on the allowlist
	// and the search path is the same client, and win_exec hdc.exe kill
	// ran without confirm.
	for _, name := range programNames {
		if err := ex.Reserve(name, opts.ToolName(ToolRun)); err != nil {
			panic(fmt.Sprintf("hdc: AddTools: %v", err))
		}
	}
	open := &mcp.ToolAnnotations{OpenWorldHint: mcp.Ptr(true)}
	destructive := &mcp.ToolAnnotations{OpenWorldHint: mcp.Ptr(true), DestructiveHint: mcp.Ptr(true)}
	readOnly := &mcp.ToolAnnotations{OpenWorldHint: mcp.Ptr(true), ReadOnlyHint: mcp.Ptr(true)}

	mcp.AddTool(srv, &mcp.Tool{
		Name:  opts.ToolName(ToolRun),
		Title: "Run hdc",
		Description: "Runs the HarmonyOS/OpenHarmony device connector (hdc) with an exact argument list, adding -t " +
			"connectKey when given. hdc always exits 0; this tool detects its [Fail] messages instead. Prefer " +
			opts.ToolName(ToolShell) + " for device commands: it returns their real exit code. hilog without -x streams forever, so " +
			"it needs timeoutMs. For a Windows hdc.exe the arguments must be ASCII (it reads them through the ANSI code " +
			"page)." + confirmRule + resultRule,
		Annotations: destructive,
	}, t.handleRun)
	mcp.AddTool(srv, &mcp.Tool{
		Name:  opts.ToolName(ToolShell),
		Title: "Run a shell command on a device",
		Description: "Runs a command line on the device with sh -c (hdc shell), pipes and redirections included: " +
			"they run on the device, never on this machine. exitCode is the device command's real exit status. " +
			"Commands with non-ASCII text, quotes or backslashes are sent base64-encoded so they arrive byte for " +
			"byte. useBusybox runs common tools through busybox. This tool does not ask for confirm: a device " +
			"command can change the device." + resultRule,
		Annotations: destructive,
	}, t.handleShell)
	mcp.AddTool(srv, &mcp.Tool{
		Name:  opts.ToolName(ToolListTargets),
		Title: "List hdc devices",
		Description: "Lists the devices hdc sees (hdc list targets [-v]) as targets: [{key, connectionType, " +
			"state, name}]; [] when there are none.",
		Annotations: readOnly,
	}, t.handleListTargets)
	mcp.AddTool(srv, &mcp.Tool{
		Name:  opts.ToolName(ToolFileSend),
		Title: "Copy a file to a device",
		Description: "Copies a local file or directory to the device (hdc file send). The local path may be in " +
			"WSL/Linux or Windows form and is converted for hdc. Overwrites the remote file. Runs only with " +
			"confirm: true (dryRun: true returns the exact argv), unless the file, its links resolved, is inside the " +
			"server's configured local roots: what reaches the device can be read back." + resultRule,
		Annotations: open,
	}, t.fileHandler("send"))
	mcp.AddTool(srv, &mcp.Tool{
		Name:  opts.ToolName(ToolFileRecv),
		Title: "Copy a file from a device",
		Description: "Copies a file or directory from the device to this machine (hdc file recv). The local path " +
			"may be in WSL/Linux or Windows form and is converted for hdc. Overwrites the local file, so it runs only " +
			"with confirm: true (dryRun: true returns the exact argv)." + resultRule,
		Annotations: open,
	}, t.fileHandler("recv"))
	mcp.AddTool(srv, &mcp.Tool{
		Name:  opts.ToolName(ToolHilog),
		Title: "Read the device log",
		Description: "Returns the last lines of the device log (hilog -x, which exits after the buffered log, " +
			"then tail on the device), optionally only lines containing filter. Never streams." + resultRule,
		Annotations: readOnly,
	}, t.handleHilog)
	mcp.AddTool(srv, &mcp.Tool{
		Name:  opts.ToolName(ToolInstall),
		Title: "Install an application",
		Description: "Installs a .hap/.hsp from this machine on the device (hdc install [-r]). Requires " +
			"confirm: true; dryRun: true returns the argv without running it. The path may be in WSL/Linux or " +
			"Windows form." + resultRule,
		Annotations: destructive,
	}, t.handleInstall)
	mcp.AddTool(srv, &mcp.Tool{
		Name:  opts.ToolName(ToolUninstall),
		Title: "Uninstall an application",
		Description: "Uninstalls an application from the device (hdc uninstall [-k] BUNDLE). Requires " +
			"confirm: true; dryRun: true returns the argv without running it." + resultRule,
		Annotations: destructive,
	}, t.handleUninstall)
}

func newToolset(ex *winexec.Executor, opts *Options) *toolset {
	if opts == nil {
		opts = &Options{}
	}
	t := &toolset{ex: ex, exe: opts.Exe, env: opts.Env, localPath: opts.LocalPath, roots: opts.LocalRoots, newNonce: NewNonce, names: opts}
	if t.exe == "" {
		t.exe = DefaultExe(ex)
	}
	backend := ex.BackendName()
	// A Windows path without ".exe" (C:\sdk\hdc, which CreateProcess and
	// wine complete), any program under a launcher or on a Windows host,
	// and a PE file by any name (WSL interop runs it) are Windows
	// programs too: they read the ANSI code page and open shares.
	t.windows = strings.HasSuffix(strings.ToLower(t.exe), ".exe") || winexec.IsWindowsPath(t.exe) ||
		backend == winexec.BackendPowerShell || backend == winexec.BackendPSHost ||
		backend == winexec.BackendDirect && len(ex.Config().Launcher) > 0 ||
		runtime.GOOS == "windows" || isPEFile(t.exe)
	return t
}

// DefaultExe is the hdc program used when Options.Exe is empty: the
// executor's Config.HDCExe, else "hdc.exe" when programs run on Windows,
// else "hdc".
func DefaultExe(ex *winexec.Executor) string {
	cfg := ex.Config()
	if cfg.HDCExe != "" {
		return cfg.HDCExe
	}
	switch ex.BackendName() {
	case winexec.BackendPowerShell, winexec.BackendPSHost, winexec.BackendDirect:
		return winexec.DefaultHDCExe
	}
	if len(cfg.Launcher) > 0 || winexec.IsWSL() || runtime.GOOS == "windows" {
		return winexec.DefaultHDCExe
	}
	return "hdc"
}

// exec runs hdc with args and turns the outcome into a Result; the caller
// decides what is an error.
func (t *toolset) exec(ctx context.Context, args []string, timeout time.Duration) (*winexec.Result, []string, error) {
	argv := append([]string{t.exe}, args...)
	res, err := t.ex.Run(ctx, winexec.Request{
		Exe:     t.exe,
		Args:    args,
		Env:     t.env,
		Timeout: timeout,
	})
	if err != nil {
		// A *winexec.NotAllowedError says already which setting allows it.
		return nil, argv, err
	}
	return res, argv, nil
}

func baseResult(res *winexec.Result, argv []string) Result {
	return Result{
		ExitCode:     res.ExitCode,
		HostExitCode: res.ExitCode,
		Stdout:       res.StdoutText(),
		Stderr:       res.StderrText(),
		DurationMs:   res.Duration.Milliseconds(),
		TimedOut:     res.TimedOut,
		Argv:         argv,
		Truncated:    res.Truncated(),
	}
}

// withKey puts -t key in front of args when key is set.
func withKey(key string, args ...string) []string {
	if key == "" {
		return args
	}
	return append([]string{"-t", key}, args...)
}

// fail returns r as a tool error whose text explains it.
func fail(r Result, format string, a ...any) (*mcp.CallToolResult, Result, error) {
	var b strings.Builder
	fmt.Fprintf(&b, format, a...)
	b.WriteString("\n")
	if len(r.Argv) > 0 {
		fmt.Fprintf(&b, "argv: %s\n", strings.Join(quoteAll(r.Argv), " "))
	}
	if r.Stdout != "" {
		fmt.Fprintf(&b, "stdout:\n%s\n", r.Stdout)
	}
	if r.Stderr != "" {
		fmt.Fprintf(&b, "stderr:\n%s\n", r.Stderr)
	}
	if r.Argv == nil {
		r.Argv = []string{}
	}
	// The text is read in a terminal or a log, and holds what the caller,
	// hdc or the device wrote (an option's value, a device's serial, its
	// output): escape sequences or a bidi override there would act on the
	// reader's terminal. structuredContent keeps the bytes.
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: termtext.Escape(b.String())}}}, r, nil
}

// quoteAll spells argv for a message: an element that a shell would split
// or expand, or that holds a rune a terminal would not show, is quoted.
func quoteAll(a []string) []string {
	out := make([]string, len(a))
	for i, s := range a {
		if s == "" || strings.ContainsAny(s, " \t\"'\\$|&;<>()*?`\n") || termtext.Escape(s) != s {
			s = strconv.Quote(s)
		}
		out[i] = s
	}
	return out
}

// ms is a tool's timeoutMs as a Duration; zero means the executor's
// default.
func ms(timeoutMs int) time.Duration { return time.Duration(timeoutMs) * time.Millisecond }

// checkTargets returns a tool error when no key was given and several
// devices are connected, listing their keys. It runs hdc list targets.
// The check and the command after it share the caller's one timeout:
// it returns the time left for the command to run argv (refusing when
// none is left), or timeout itself when no check ran.
func (t *toolset) checkTargets(ctx context.Context, key string, timeout time.Duration, argv []string) (time.Duration, *mcp.CallToolResult, Result, bool) {
	if key != "" {
		return timeout, nil, Result{}, true
	}
	// Before, the check and the command each had the whole timeout, so a
	// call could last twice what was asked.
	total := t.ex.Timeout(timeout)
	start := time.Now()
	res, checkArgv, err := t.exec(ctx, []string{"list", "targets"}, total)
	if err != nil {
		r, out, _ := fail(Result{Argv: checkArgv}, "checking the connected devices failed: %v", err)
		return 0, r, out, false
	}
	if res.TimedOut {
		r, out, _ := fail(baseResult(res, checkArgv), "hdc list targets timed out after %d ms while checking the connected devices", res.Duration.Milliseconds())
		return 0, r, out, false
	}
	left := total - time.Since(start)
	if left <= 0 {
		r, out, _ := fail(Result{Argv: argv, ExitCode: -1, TimedOut: true, DurationMs: time.Since(start).Milliseconds()},
			"timed out: checking the connected devices (hdc list targets) took the whole timeout of %d ms; the command did not run", total.Milliseconds())
		return 0, r, out, false
	}
	ts := ParseTargets(res.StdoutText())
	if len(ts) <= 1 {
		return left, nil, Result{}, true
	}
	keys := make([]string, len(ts))
	out := Result{ExitCode: -1, Argv: checkArgv, Stdout: res.StdoutText(), DurationMs: res.Duration.Milliseconds(), Targets: ts}
	for i, tg := range ts {
		keys[i] = tg.Key
	}
	out.FailMessage = "several devices are connected: " + strings.Join(keys, ", ")
	r, o, _ := fail(out, "%d devices are connected: pass connectKey, one of: %s", len(keys), strings.Join(keys, ", "))
	return 0, r, o, false
}

// finishPlain turns a finished non-shell run into the tool's answer:
// [Fail] lines and timeouts are errors.
func finishPlain(res *winexec.Result, argv []string, verb string) (*mcp.CallToolResult, Result, error) {
	out := baseResult(res, argv)
	if f := FindFailure(out.Stdout+"\n"+out.Stderr, verb); f != nil {
		out.FailCode, out.FailMessage = failCode(f), f.Message
	}
	switch {
	case out.TimedOut:
		return fail(out, "hdc timed out after %d ms and was killed", out.DurationMs)
	case out.FailCode != "":
		return fail(out, "hdc reported a failure (%s): %s", out.FailCode, out.FailMessage)
	case out.ExitCode != 0:
		return fail(out, "hdc exited with code %d", out.ExitCode)
	}
	return nil, out, nil
}

func failCode(f *Failure) string {
	if f.Code != "" {
		return f.Code
	}
	return "FAIL"
}

func dryRun(argv []string) (*mcp.CallToolResult, Result, error) {
	return nil, Result{Argv: argv, DryRun: true}, nil
}

func refuseDestructive(argv []string, why string) (*mcp.CallToolResult, Result, error) {
	return fail(Result{Argv: argv, ExitCode: -1, FailMessage: why}, "not run: %s; pass confirm: true to run it, or dryRun: true to see the exact argv", why)
}

// expect checks the argument list a dedicated tool is about to run: key
// is a valid connect key, and hdc reads args as the tool means them, with
// want as its command and no global option but -t key.
func (t *toolset) expect(args []string, want, key string) error {
	if key != "" {
		if err := CheckConnectKey(key); err != nil {
			return err
		}
	}
	c := ParseArgv(append([]string{t.exe}, args...))
	if c.Refused {
		return errors.New(c.Why)
	}
	n := 0
	if key != "" {
		n = 1
	}
	if c.Verb != want || c.ConnectKey != key || len(c.opts) != n {
		return fmt.Errorf("hdc would read these arguments as the command %q with the options %q, not as %s", c.Verb, c.Options(), want)
	}
	// hdc splits the command line again (Base::SplitCommandToArgs, which
	// drops double quotes and splits at tabs, CR and LF) and takes the
	// file tools' local path from the end of it: a remote path holding a
	// tab would put any path there, a network share included. Only what
	// splits back into the arguments as given is run.
	if words := splitWords(c.Line); !slices.Equal(words, append(strings.Fields(want), c.Rest...)) {
		return fmt.Errorf("hdc would split these arguments into %q: a double quote, tab or line break changes them", words)
	}
	return nil
}

// nonASCII returns the first argument holding a character outside
// printable ASCII, or -1.
func nonASCII(args []string) int {
	for i, a := range args {
		for j := 0; j < len(a); j++ {
			if a[j] > 0x7e {
				return i
			}
		}
	}
	return -1
}

func (t *toolset) handleRun(ctx context.Context, req *mcp.CallToolRequest, in RunInput) (*mcp.CallToolResult, Result, error) {
	if in.ConnectKey != "" {
		if err := CheckConnectKey(in.ConnectKey); err != nil {
			return fail(Result{ExitCode: -1}, "%v", err)
		}
	}
	args := withKey(in.ConnectKey, in.Args...)
	argv := append([]string{t.exe}, args...)
	if i := nonASCII(in.Args); i >= 0 && t.windows {
		// hdc.exe reads its command line through the ANSI code page, whose
		// best-fit mapping turns characters such as fullwidth quotes,
		// dashes and letters into ASCII ones: what hdc.exe would run cannot
		// be known from these arguments.
		return fail(Result{Argv: argv, ExitCode: -1}, "argument %d (%q) holds non-ASCII characters, which hdc.exe receives through the Windows ANSI code page: it may lose them or turn them into quotes, dashes or letters, so the command cannot be checked. Use hdc_shell for device commands (it encodes them) and the file tools for paths", i, in.Args[i])
	}
	// Decide on the exact argv that will run, read as hdc reads it.
	c := ParseArgv(argv)
	if c.Refused {
		return fail(Result{Argv: argv, ExitCode: -1, FailMessage: c.Why}, "not run: %s", c.Why)
	}
	if t.windows && slices.Contains(localPathVerbs, c.Verb) {
		if why := localPathRisk(c); why != "" {
			return fail(Result{Argv: argv, ExitCode: -1, FailMessage: why}, "not run: %s", why)
		}
	}
	if in.ConnectKey != "" {
		keys := 0
		for _, o := range c.opts {
			if o.flag == 't' {
				keys++
			}
		}
		if keys != 1 || c.ConnectKey != in.ConnectKey {
			return fail(Result{Argv: argv, ExitCode: -1}, "connectKey %q and a -t option in args were both given; use one", in.ConnectKey)
		}
	}
	if c.ConnectKey != "" {
		if err := CheckConnectKey(c.ConnectKey); err != nil {
			return fail(Result{Argv: argv, ExitCode: -1}, "-t %v", err)
		}
	}
	if c.Destructive && !in.Confirm && !in.DryRun {
		return refuseDestructive(argv, c.Why)
	}
	if in.DryRun {
		return dryRun(argv)
	}
	if c.Verb == "hilog" && in.TimeoutMs <= 0 {
		return fail(Result{Argv: argv, ExitCode: -1}, "hdc hilog streams the log forever: use %s, or give timeoutMs to stop it", t.names.ToolName(ToolHilog))
	}
	if c.Verb == "shell" && blankShellCommand(c.Rest) {
		return fail(Result{Argv: argv, ExitCode: -1}, "an interactive hdc shell cannot run here: give the command after \"shell\", or use %s", t.names.ToolName(ToolShell))
	}
	timeout := ms(in.TimeoutMs)
	if c.Device {
		key := in.ConnectKey
		if key == "" {
			key = c.ConnectKey
		}
		left, r, out, ok := t.checkTargets(ctx, key, timeout, argv)
		if !ok {
			return r, out, nil
		}
		timeout = left
	}
	res, argv, err := t.exec(ctx, args, timeout)
	if err != nil {
		return nil, Result{}, err
	}
	return finishPlain(res, argv, c.Verb)
}

// blankShellCommand reports arguments after "shell" that leave no
// command: none, or an empty one, for which hdc starts the interactive
// shell that waits for input until the call times out, or blank text
// and quotes, which hdcd trims away (ShellCmdTrim: white space and one
// pair of double quotes) before running what is left.
func blankShellCommand(rest []string) bool {
	s := strings.TrimSpace(strings.Join(rest, " "))
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	return s == ""
}

// shell runs script on the device through the sentinel wrapper.
func (t *toolset) shell(ctx context.Context, key, command string, busybox bool, timeoutMs int, dry bool) (*mcp.CallToolResult, Result, error) {
	if strings.IndexByte(command, 0) >= 0 {
		return fail(Result{ExitCode: -1}, "the command contains a NUL byte, which no command line can carry")
	}
	plan := PlanShell(command, busybox, t.newNonce())
	args := withKey(key, "shell", plan.Wire)
	argv := append([]string{t.exe}, args...)
	if err := t.expect(args, "shell", key); err != nil {
		return fail(Result{Argv: argv, ExitCode: -1}, "not run: %v", err)
	}
	if len(plan.Wire) > MaxWire {
		return fail(Result{Argv: argv, ExitCode: -1}, "the command is too long for a command line (%d characters sent, at most %d)", len(plan.Wire), MaxWire)
	}
	if dry {
		return nil, Result{Argv: argv, DryRun: true, DeviceCommand: plan.Script, Encoded: plan.Encoded}, nil
	}
	timeout, r, refused, ok := t.checkTargets(ctx, key, ms(timeoutMs), argv)
	if !ok {
		return r, refused, nil
	}
	res, argv, err := t.exec(ctx, args, timeout)
	if err != nil {
		return nil, Result{}, err
	}
	out := baseResult(res, argv)
	out.DeviceCommand, out.Encoded = plan.Script, plan.Encoded
	// The sentinel ends the stream and the busybox marker starts it: cut
	// them from the tail and the head, and decode those as winexec does,
	// each on its own. Decoding a truncated flood at once took a character
	// cut at either end for a non-UTF-8 stream, and every line came back
	// in the ANSI code page's mojibake.
	o := res.Stdout
	end := &o.Head
	if o.Truncated() {
		end = &o.Tail
	}
	clean, status, ok := CutSentinel(*end, plan.Nonce)
	o.Total -= int64(len(*end) - len(clean))
	*end = clean
	noBusybox := false
	if busybox {
		n := len(o.Head)
		o.Head, noBusybox = cutLine(o.Head, noBusyboxPrefix+plan.Nonce)
		o.Total -= int64(n - len(o.Head))
	}
	out.Stdout = o.Text(res.CodePage)
	if ok {
		out.ExitCode = status
	} else {
		out.ExitCode = -1
		if f := FindFailure(out.Stdout+"\n"+out.Stderr, "shell"); f != nil {
			out.FailCode, out.FailMessage = failCode(f), f.Message
		}
	}
	switch {
	case noBusybox:
		return fail(out, "useBusybox: the device has no busybox (its tools are toybox); run the command without useBusybox")
	case out.TimedOut:
		return fail(out, "the command timed out after %d ms; hdc was killed", out.DurationMs)
	case out.FailCode != "":
		return fail(out, "hdc reported a failure (%s): %s", out.FailCode, out.FailMessage)
	case !ok:
		return fail(out, "the device command did not report an exit status (hdc exited with code %d); it may not have run", res.ExitCode)
	case status != 0:
		return fail(out, "the device command exited with status %d", status)
	}
	return nil, out, nil
}

func (t *toolset) handleShell(ctx context.Context, req *mcp.CallToolRequest, in ShellInput) (*mcp.CallToolResult, Result, error) {
	if strings.TrimSpace(in.Command) == "" {
		return fail(Result{ExitCode: -1}, "command is empty: an interactive hdc shell cannot run here")
	}
	return t.shell(ctx, in.ConnectKey, in.Command, in.UseBusybox, in.TimeoutMs, in.DryRun)
}

func (t *toolset) handleHilog(ctx context.Context, req *mcp.CallToolRequest, in HilogInput) (*mcp.CallToolResult, Result, error) {
	n := in.Lines
	if n <= 0 {
		n = DefaultHilogLines
	}
	// grep -F takes each line of its pattern as a pattern of its own:
	// "tag\n" holds the empty one, which keeps every line.
	if strings.Contains(in.Filter, "\n") {
		return fail(Result{ExitCode: -1}, "filter %q holds a line break, which no log line holds: give the text of one line", in.Filter)
	}
	cmd := "hilog -x"
	if in.Filter != "" {
		cmd += " | grep -F -e " + shellQuote(in.Filter)
	}
	cmd += " | tail -n " + strconv.Itoa(n)
	return t.shell(ctx, in.ConnectKey, cmd, false, in.TimeoutMs, in.DryRun)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (t *toolset) handleListTargets(ctx context.Context, req *mcp.CallToolRequest, in ListTargetsInput) (*mcp.CallToolResult, Result, error) {
	args := []string{"list", "targets"}
	if in.Verbose {
		args = append(args, "-v")
	}
	res, argv, err := t.exec(ctx, args, ms(in.TimeoutMs))
	if err != nil {
		return nil, Result{}, err
	}
	r, out, err := finishPlain(res, argv, "list targets")
	if r == nil && err == nil {
		out.Targets = ParseTargets(out.Stdout)
	}
	return r, out, err
}

// local converts a local path for hdc: Windows-form paths are kept for a
// Windows hdc and converted to Linux form for a native one; Linux-form
// paths are made absolute (relative to this process's directory, not
// hdc's) and converted for a Windows hdc.
func (t *toolset) local(p string) (string, error) {
	if p == "" {
		return "", errors.New("the local path is empty")
	}
	if winexec.IsWindowsPath(p) {
		if err := checkWindowsLocal(p); err != nil {
			return "", err
		}
		if t.windows {
			return p, nil
		}
		return winexec.WinToWSL(p)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if !t.windows {
		return abs, nil
	}
	if t.localPath != nil {
		return t.localPath(abs)
	}
	return winexec.WSLToWin(abs)
}

// checkANSI refuses paths a Windows hdc would receive mangled.
func (t *toolset) checkANSI(what, p string) error {
	if !t.windows {
		return nil
	}
	for _, r := range p {
		if r > 0x7e {
			return fmt.Errorf("the %s path %q holds non-ASCII characters, which hdc.exe receives through the Windows ANSI code page and may lose; rename it or copy through an ASCII path (for the device side, %s with mv works)", what, p, t.names.ToolName(ToolShell))
		}
	}
	return nil
}

func (t *toolset) fileHandler(dir string) func(context.Context, *mcp.CallToolRequest, FileInput) (*mcp.CallToolResult, Result, error) {
	return func(ctx context.Context, req *mcp.CallToolRequest, in FileInput) (*mcp.CallToolResult, Result, error) {
		if in.Remote == "" {
			return fail(Result{ExitCode: -1}, "remote is empty")
		}
		lp, err := t.local(in.Local)
		if err != nil {
			return fail(Result{ExitCode: -1}, "local path %q: %v", in.Local, err)
		}
		if err := t.checkANSI("local", lp); err != nil {
			return fail(Result{ExitCode: -1}, "%v", err)
		}
		if err := t.checkANSI("remote", in.Remote); err != nil {
			return fail(Result{ExitCode: -1}, "%v", err)
		}
		args := []string{"file", "send", lp, in.Remote}
		if dir == "recv" {
			args = []string{"file", "recv", in.Remote, lp}
		}
		args = withKey(in.ConnectKey, args...)
		if err := t.expect(args, "file "+dir, in.ConnectKey); err != nil {
			return fail(Result{Argv: append([]string{t.exe}, args...), ExitCode: -1}, "not run: %v", err)
		}
		if dir == "recv" && !in.Confirm && !in.DryRun {
			return refuseDestructive(append([]string{t.exe}, args...), "hdc file recv writes a file or directory on this machine")
		}
		if dir == "send" && !in.Confirm {
			// hdc_shell reads back whatever was sent: without confirm,
			// only files inside the configured roots leave the machine,
			// and hdc gets the path that was judged, links resolved. A
			// dry run shows that argv, the one the call would run.
			resolved, ok := t.insideRoots(in.Local)
			if !ok && in.DryRun {
				return dryRun(append([]string{t.exe}, args...))
			}
			if !ok {
				return refuseDestructive(append([]string{t.exe}, args...), sendWhy)
			}
			if lp, err = t.local(resolved); err != nil {
				return fail(Result{ExitCode: -1}, "local path %q: %v", resolved, err)
			}
			if err := t.checkANSI("local", lp); err != nil {
				return fail(Result{ExitCode: -1}, "%v", err)
			}
			args = withKey(in.ConnectKey, "file", "send", lp, in.Remote)
			if err := t.expect(args, "file send", in.ConnectKey); err != nil {
				return fail(Result{Argv: append([]string{t.exe}, args...), ExitCode: -1}, "not run: %v", err)
			}
		}
		if in.DryRun {
			return dryRun(append([]string{t.exe}, args...))
		}
		timeout, r, out, ok := t.checkTargets(ctx, in.ConnectKey, ms(in.TimeoutMs), append([]string{t.exe}, args...))
		if !ok {
			return r, out, nil
		}
		res, argv, err := t.exec(ctx, args, timeout)
		if err != nil {
			return nil, Result{}, err
		}
		return finishPlain(res, argv, "file "+dir)
	}
}

func (t *toolset) handleInstall(ctx context.Context, req *mcp.CallToolRequest, in InstallInput) (*mcp.CallToolResult, Result, error) {
	lp, err := t.local(in.Path)
	if err != nil {
		return fail(Result{ExitCode: -1}, "path %q: %v", in.Path, err)
	}
	if err := t.checkANSI("package", lp); err != nil {
		return fail(Result{ExitCode: -1}, "%v", err)
	}
	args := []string{"install"}
	if in.Replace {
		args = append(args, "-r")
	}
	args = withKey(in.ConnectKey, append(args, lp)...)
	return t.guarded(ctx, args, in.ConnectKey, in.Confirm, in.DryRun, in.TimeoutMs, "install")
}

func (t *toolset) handleUninstall(ctx context.Context, req *mcp.CallToolRequest, in UninstallInput) (*mcp.CallToolResult, Result, error) {
	if err := checkBundle(in.Bundle); err != nil {
		return fail(Result{ExitCode: -1}, "%v", err)
	}
	args := []string{"uninstall"}
	if in.KeepData {
		args = append(args, "-k")
	}
	args = withKey(in.ConnectKey, append(args, in.Bundle)...)
	return t.guarded(ctx, args, in.ConnectKey, in.Confirm, in.DryRun, in.TimeoutMs, "uninstall")
}

// guarded runs a destructive device command: confirm runs it, dryRun shows
// it, neither refuses.
func (t *toolset) guarded(ctx context.Context, args []string, key string, confirm, dry bool, timeoutMs int, verb string) (*mcp.CallToolResult, Result, error) {
	argv := append([]string{t.exe}, args...)
	if err := t.expect(args, verb, key); err != nil {
		return fail(Result{Argv: argv, ExitCode: -1}, "not run: %v", err)
	}
	if dry {
		return dryRun(argv)
	}
	if !confirm {
		return refuseDestructive(argv, "hdc "+verb+" changes the device")
	}
	timeout, r, out, ok := t.checkTargets(ctx, key, ms(timeoutMs), argv)
	if !ok {
		return r, out, nil
	}
	res, argv, err := t.exec(ctx, args, timeout)
	if err != nil {
		return nil, Result{}, err
	}
	return finishPlain(res, argv, verb)
}

// checkBundle accepts an application's bundle name: 1 to 128 ASCII
// letters, digits, '_' and '.', starting with a letter (OpenHarmony's
// bundleName rule, loosened on length). It reaches hdc as one argument
// after uninstall, so it must not start with '-' (an uninstall option) or
// hold anything a Windows hdc would receive changed.
func checkBundle(b string) error {
	if b == "" {
		return errors.New("bundle is empty")
	}
	ok := len(b) <= 128 && ('a' <= b[0] && b[0] <= 'z' || 'A' <= b[0] && b[0] <= 'Z')
	for i := 0; ok && i < len(b); i++ {
		c := b[i]
		ok = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.'
	}
	if !ok {
		return fmt.Errorf("bundle %q is not a bundle name (a letter, then letters, digits, '_' and '.', at most 128)", b)
	}
	return nil
}
