package winexec_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
	"github.com/winbridge/winbridge/winexec"
)

func toolClient(t *testing.T, opts *winexec.ToolOptions) *client.Client {
	t.Helper()
	ex, err := winexec.New(winexec.Config{
		Backend:        winexec.BackendLocal,
		Policy:         winexec.Policy{AllowExe: []string{"printf", "sh"}},
		DefaultTimeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	srv := mcp.NewServer(&mcp.Implementation{Name: "winexec-tools", Version: "1"}, nil)
	winexec.AddTools(srv, ex, opts)
	a, b := transport.Pipe(nil)
	srv.Connect(b)
	c, err := client.Connect(context.Background(), a, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func structured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
}

func TestWinExecTool(t *testing.T) {
	c := toolClient(t, nil)
	ctx := context.Background()
	args := []string{`%s|%s|%s\n`, `a "quoted" b`, ``, `$HOME & | ; 中文 \`}
	res, err := c.CallTool(ctx, "win_exec", map[string]any{"exe": "printf", "args": args})
	if err != nil {
		t.Fatal(err)
	}
	var out winexec.ExecOutput
	structured(t, res, &out)
	if res.IsError || out.ExitCode != 0 || out.Stdout != `a "quoted" b||$HOME & | ; 中文 \`+"\n" || out.TimedOut {
		t.Fatalf("result %+v (isError %v)", out, res.IsError)
	}
	if strings.Join(out.Command.Args, "\x00") != strings.Join(args, "\x00") || out.Command.Exe != "printf" {
		t.Errorf("command echo %+v", out.Command)
	}

	res, err = c.CallTool(ctx, "win_exec", map[string]any{"exe": "sh", "args": []string{"-c", "echo out; echo err >&2; exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	structured(t, res, &out)
	if !res.IsError || out.ExitCode != 3 || out.Stdout != "out\n" || out.Stderr != "err\n" || !strings.Contains(res.TextOf(), "exited with code 3") {
		t.Fatalf("non-zero exit: %+v isError %v text %q", out, res.IsError, res.TextOf())
	}

	res, err = c.CallTool(ctx, "win_exec", map[string]any{"exe": "sh", "args": []string{"-c", "sleep 30"}, "timeoutMs": 100})
	if err != nil {
		t.Fatal(err)
	}
	structured(t, res, &out)
	if !res.IsError || !out.TimedOut || !strings.Contains(res.TextOf(), "timed out") {
		t.Fatalf("timeout: %+v %q", out, res.TextOf())
	}

	res, err = c.CallTool(ctx, "win_exec", map[string]any{"exe": "sh", "args": []string{"-c", "cat"}, "stdin": "piped\n"})
	if err != nil {
		t.Fatal(err)
	}
	structured(t, res, &out)
	if out.Stdout != "piped\n" {
		t.Fatalf("stdin: %+v", out)
	}

	res, err = c.CallTool(ctx, "win_exec", map[string]any{"exe": "rm", "args": []string{"-rf", "/tmp/x"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.TextOf(), "ALLOW_EXE") {
		t.Fatalf("refused program: isError %v %q", res.IsError, res.TextOf())
	}
}

func TestPathTools(t *testing.T) {
	c := toolClient(t, nil)
	ctx := context.Background()
	res, err := c.CallTool(ctx, "path_wsl_to_win", map[string]string{"path": "/mnt/c/Users/me/a b.txt"})
	if err != nil {
		t.Fatal(err)
	}
	var p winexec.PathOutput
	structured(t, res, &p)
	if res.IsError || p.Path != `C:\Users\me\a b.txt` {
		t.Fatalf("wsl_to_win: %+v %q", p, res.TextOf())
	}
	res, err = c.CallTool(ctx, "path_win_to_wsl", map[string]string{"path": `D:\data\x.log`})
	if err != nil {
		t.Fatal(err)
	}
	structured(t, res, &p)
	if res.IsError || p.Path != "/mnt/d/data/x.log" {
		t.Fatalf("win_to_wsl: %+v %q", p, res.TextOf())
	}
}

// TestToolListAndDottedNames: the default names pass the strictest host
// rule; DottedNames lists and calls the tools under the spelling of earlier
// releases.
func TestToolListAndDottedNames(t *testing.T) {
	for _, dotted := range []bool{false, true} {
		c := toolClient(t, &winexec.ToolOptions{DottedNames: dotted})
		tools, err := c.ListTools(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range tools {
			names = append(names, tl.Name)
			if tl.Name == "win.exec" || tl.Name == "win_exec" {
				a := tl.Annotations
				if a == nil || a.OpenWorldHint == nil || !*a.OpenWorldHint || a.DestructiveHint == nil || !*a.DestructiveHint {
					t.Errorf("win_exec annotations %+v", a)
				}
			}
		}
		want := "path_win_to_wsl,path_wsl_to_win,win_exec"
		exec, toWin := "win_exec", "path_wsl_to_win"
		if dotted {
			want = "path.win_to_wsl,path.wsl_to_win,win.exec"
			exec, toWin = "win.exec", "path.wsl_to_win"
		}
		if got := strings.Join(names, ","); got != want {
			t.Errorf("dotted=%v: tools %s, want %s", dotted, got, want)
		}
		res, err := c.CallTool(context.Background(), exec, map[string]any{"exe": "printf", "args": []string{"called"}})
		if err != nil || res.IsError || !strings.Contains(res.TextOf(), "called") {
			t.Errorf("dotted=%v: %s: %v %+v", dotted, exec, err, res)
		}
		res, err = c.CallTool(context.Background(), toWin, map[string]string{"path": "/mnt/c/x"})
		if err != nil || res.IsError || !strings.Contains(res.TextOf(), `C:\\x`) {
			t.Errorf("dotted=%v: %s: %v %+v", dotted, toWin, err, res)
		}
	}
}

// TestPathToolsSameFile: the path tools promise the path of the same
// file. Windows applies "." and ".." lexically and drops trailing dots
// and spaces of a component (Win32 normalization); Linux resolves ".."
// from where a symbolic link led. Before, path_win_to_wsl turned
// C:\x\..\..\etc\passwd (C:\etc\passwd to Windows) into
// /mnt/c/x/../../etc/passwd, which is /etc/passwd, and path_wsl_to_win
// turned /mnt/c/../../etc/passwd (/etc/passwd) into C:\..\..\etc\passwd,
// which Windows reads as C:\etc\passwd.
func TestPathToolsSameFile(t *testing.T) {
	c := toolClient(t, nil)
	ctx := context.Background()
	call := func(tool, in string) (string, bool) {
		t.Helper()
		res, err := c.CallTool(ctx, tool, map[string]string{"path": in})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			return res.TextOf(), false
		}
		var p winexec.PathOutput
		structured(t, res, &p)
		return p.Path, true
	}
	for in, want := range map[string]string{
		`C:\x\..\..\etc\passwd`: "/mnt/c/etc/passwd",
		`C:\a\.\b\..\c`:         "/mnt/c/a/c",
		`C:\secret.txt.`:        "/mnt/c/secret.txt",
		`C:\dir. \file `:        "/mnt/c/dir/file",
		`D:/x/../y`:             "/mnt/d/y",
	} {
		if got, ok := call("path_win_to_wsl", in); !ok || got != want {
			t.Errorf("path_win_to_wsl %q = %q (ok %v), want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{`\\?\C:\a\..\b`, `\\?\C:\a\.\b`, `\\?\UNC\host\share\x`} {
		if got, ok := call("path_win_to_wsl", in); ok {
			t.Errorf("path_win_to_wsl %q = %q; Windows does not normalize a \\\\?\\ path, want a refusal", in, got)
		}
	}
	for _, in := range []string{"/mnt/c/../../etc/passwd", "/mnt/c/x/..", "/home/u/../../etc"} {
		if got, ok := call("path_wsl_to_win", in); ok {
			t.Errorf("path_wsl_to_win %q = %q, want a refusal (.. depends on symbolic links Windows would not follow)", in, got)
		}
	}
	if got, ok := call("path_wsl_to_win", "/mnt/c/./x"); !ok || got != `C:\x` {
		t.Errorf("path_wsl_to_win /mnt/c/./x = %q (ok %v)", got, ok)
	}
}
