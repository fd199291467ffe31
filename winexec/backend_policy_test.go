//go:build unix

package winexec

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestBackendsRefuseQuotedExe: every backend, used without an Executor,
// refuses a program name Windows would split again. Against the
// PowerShell double the injected text would otherwise run: the double
// parses the line .NET builds ("exe" cmdline) with the CommandLineToArgvW
// rules, exactly as CreateProcess finds the program.
func TestBackendsRefuseQuotedExe(t *testing.T) {
	prog := nativeHelper(t)
	// An allowed basename at the end; the quote ends the program name and
	// "argv injected" becomes the helper's arguments.
	exe := prog + `" argv injected \hdc.exe`
	host := &PSHost{PowerShell: *fakePSBackend(t, "normal")}
	t.Cleanup(func() { host.Close() })
	for name, b := range map[string]Backend{
		"powershell": fakePSBackend(t, "normal"),
		"pshost":     host,
		"direct":     &Direct{Paths: &PathMapper{Distro: "TestDistro"}},
		"local":      &Local{},
	} {
		t.Run(name, func(t *testing.T) {
			res, err := b.Run(context.Background(), &Request{Exe: exe, Timeout: 10 * time.Second})
			if !errors.Is(err, ErrInvalidExe) {
				t.Fatalf("err = %v, want ErrInvalidExe", err)
			}
			if res != nil {
				t.Fatalf("something ran: %q", res.Stdout.Bytes())
			}
		})
	}
}

// TestExecutorQuoteInjectionOverPowerShell is the attack end to
// end: the default allowlist (hdc.exe) and the pshost backend.
func TestExecutorQuoteInjectionOverPowerShell(t *testing.T) {
	prog := nativeHelper(t)
	host := &PSHost{PowerShell: *fakePSBackend(t, "normal")}
	e := mustNew(t, Config{Runner: host})
	t.Cleanup(func() { e.Close() })
	res, err := e.Run(context.Background(), Request{Exe: prog + `" argv injected \hdc.exe`})
	if !errors.Is(err, ErrInvalidExe) {
		out := ""
		if res != nil {
			out = string(res.Stdout.Bytes())
		}
		t.Fatalf("err = %v, output %q; want ErrInvalidExe and nothing run", err, out)
	}
}

// TestBackendsRefuseBadCwd: a backend used alone refuses network-share,
// device and relative working directories too.
func TestBackendsRefuseBadCwd(t *testing.T) {
	prog := nativeHelper(t)
	for name, b := range map[string]Backend{
		"powershell": fakePSBackend(t, "normal"),
		"direct":     &Direct{Paths: &PathMapper{Distro: "TestDistro"}},
		"local":      &Local{},
	} {
		for _, cwd := range []string{`\\evil\share`, `\\?\C:\`, "rel/dir"} {
			_, err := b.Run(context.Background(), &Request{Exe: prog, Args: []string{"cwd"}, Cwd: cwd, Timeout: 10 * time.Second})
			if !errors.Is(err, ErrInvalidCwd) {
				t.Errorf("%s, cwd %q: err = %v, want ErrInvalidCwd", name, cwd, err)
			}
		}
	}
}

// TestDirectRefusesWSLENVSyntax: Direct names the request's variables in
// WSLENV; a name with ":" would add another (the server's PATH) to what
// Windows sees.
func TestDirectRefusesWSLENVSyntax(t *testing.T) {
	prog := nativeHelper(t)
	d := &Direct{}
	res, err := d.Run(context.Background(), &Request{Exe: prog, Args: []string{"env", "WSLENV"}, Env: map[string]string{"A:PATH/p": "x"}, Timeout: 10 * time.Second})
	if !errors.Is(err, ErrInvalidEnv) {
		out := ""
		if res != nil {
			out = strings.TrimSpace(string(res.Stdout.Bytes()))
		}
		t.Fatalf("err = %v (child saw WSLENV %q), want ErrInvalidEnv", err, out)
	}
}

// TestDirectEnvDropsRequestWSLENV: WSLENV is interop's own control
// variable. A request that sets it (ALLOW_ENV=WSLENV) must not choose
// which of the server's variables cross to Windows: the environment holds
// one WSLENV, naming the request's other variables only.
func TestDirectEnvDropsRequestWSLENV(t *testing.T) {
	t.Setenv("WSLENV", "USERPROFILE/p")
	for _, name := range []string{"WSLENV", "wslenv", "WslEnv"} {
		env := directEnv(map[string]string{name: "HOME/p:PATH/l", "X": "1"}, nil, nil)
		var got []string
		for _, kv := range env {
			if k, _, _ := strings.Cut(kv, "="); strings.EqualFold(k, "WSLENV") {
				got = append(got, kv)
			}
		}
		if len(got) != 1 || got[0] != "WSLENV=X" {
			t.Errorf("request %s=HOME/p:PATH/l: WSLENV entries %q, want [WSLENV=X]", name, got)
		}
	}
}

// TestDirectNameIsWindowsProgram: under WSL interop a name entry allows
// the name without ".exe" (find.exe allows "find"), and interop finds it
// on the Linux PATH, whose Linux directories come first: "find" ran
// /usr/bin/find, whose -exec runs any program. Direct gives a name
// without an extension the ".exe" CreateProcess would.
func TestDirectNameIsWindowsProgram(t *testing.T) {
	t.Setenv("WSL_DISTRO_NAME", "test")
	for exe, want := range map[string]string{"find": "find.exe", "FIND": "FIND.exe", "hdc.exe": "hdc.exe", "HDC.EXE": "HDC.EXE", "chcp.com": "chcp.com", "python3.11": "python3.11.exe", "/usr/bin/find": "/usr/bin/find"} {
		argv, _, err := (&Direct{}).argv(&Request{Exe: exe, Args: []string{"/", "-exec", "sh", ";"}})
		if err != nil || argv[0] != want {
			t.Errorf("%s: argv %q, %v; want the program %s", exe, argv, err, want)
		}
	}
	// A launcher (wine) searches the Windows way itself.
	if argv, _, _ := (&Direct{Launcher: []string{"wine"}}).argv(&Request{Exe: "find"}); argv[1] != "find" {
		t.Errorf("under wine: argv %q", argv)
	}
}
