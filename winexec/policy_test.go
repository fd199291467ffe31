package winexec

import (
	"context"
	"errors"
	"testing"
)

// injectExe is the attack of the issue: an allowed basename at the end of
// a string whose quote ends the program name Windows sees, so cmd.exe runs
// attacker text.
const injectExe = `C:\Windows\System32\cmd.exe" /c calc & rem \hdc.exe`

func TestPolicyCheckExe(t *testing.T) {
	tests := []struct {
		allow []string
		exe   string
		want  string // the program to run; "" means refused
	}{
		{nil, "hdc.exe", "hdc.exe"},
		{nil, "HDC", "hdc"},
		{nil, "Hdc.EXE", "hdc.EXE"},
		{nil, "cmd.exe", ""},
		{nil, "hdc.exe.bat", ""},
		{nil, "hdc.exe.exe", ""},
		// A name entry is the name alone, found by the search path; a
		// file of that name in any directory is a different program.
		{nil, `C:\tools\HDC.EXE`, ""},
		{nil, `C:\evil\hdc.exe`, ""},
		{nil, "/mnt/c/tools/hdc.exe", ""},
		{nil, "/tmp/x/hdc", ""},
		{nil, `\\host\share\hdc.exe`, ""},
		{nil, `//host/share/hdc.exe`, ""},
		{nil, `\\?\C:\evil\hdc.exe`, ""},
		{nil, `\\.\C:\evil\hdc.exe`, ""},
		{[]string{"cmd"}, "cmd.exe", "cmd.exe"},
		{[]string{"cmd.exe", "powershell.exe"}, "PowerShell", "powershell"},
		// A path entry allows that file, in either spelling; what runs is
		// the entry as listed.
		{[]string{`C:\Windows\System32\cmd.exe`}, `c:\windows\system32\CMD.EXE`, `C:\Windows\System32\cmd.exe`},
		{[]string{`C:\Windows\System32\cmd.exe`}, "/mnt/c/Windows/System32/cmd.exe", `C:\Windows\System32\cmd.exe`},
		{[]string{`C:\Windows\System32\cmd.exe`}, "C:/Windows/System32/cmd", `C:\Windows\System32\cmd.exe`},
		{[]string{"/mnt/c/tools/hdc.exe"}, `C:\tools\hdc.exe`, "/mnt/c/tools/hdc.exe"},
		{[]string{`C:\Windows\System32\cmd.exe`}, "cmd.exe", ""},
		{[]string{`C:\Windows\System32\cmd.exe`}, `D:\evil\cmd.exe`, ""},
		{[]string{`C:\Windows\System32\cmd.exe`}, `\\?\C:\Windows\System32\cmd.exe`, ""},
		{[]string{`C:\Windows\System32\cmd.exe`}, `\\localhost\C$\Windows\System32\cmd.exe`, ""},
		// UNC and device paths only as listed.
		{[]string{`\\host\share\hdc.exe`}, `\\HOST\share\hdc.exe`, `\\host\share\hdc.exe`},
		{[]string{`\\host\share\hdc.exe`}, `//host/share/hdc.exe`, `\\host\share\hdc.exe`},
		{[]string{`\\?\C:\tools\hdc.exe`}, `\\?\C:\tools\hdc.exe`, `\\?\C:\tools\hdc.exe`},
		{[]string{`\\?\C:\tools\hdc.exe`}, `C:\tools\hdc.exe`, ""},
		{[]string{"/usr/bin/printf"}, "/usr/bin/printf", "/usr/bin/printf"},
		{[]string{"/usr/bin/printf"}, "/usr/bin/../bin/printf", ""},
		{[]string{"*"}, "anything.exe", "anything.exe"},
		{[]string{"*"}, "C:/x/y.exe", `C:\x\y.exe`},
		// An invalid entry allows nothing, not even itself.
		{[]string{`C:\x\"y.exe`}, `C:\x\"y.exe`, ""},
		{[]string{`tools\hdc.exe`}, `tools\hdc.exe`, ""},
	}
	for _, tt := range tests {
		p := Policy{AllowExe: tt.allow}
		got, err := p.CheckExe(tt.exe)
		if got != tt.want || (err == nil) != (tt.want != "") {
			t.Errorf("AllowExe %q, exe %q: got %q, %v; want %q", tt.allow, tt.exe, got, err, tt.want)
		}
	}
}

// TestPolicyRefusesInvalidExe covers the programs no allowlist may allow,
// "*" included: they are not what Windows would run as written.
func TestPolicyRefusesInvalidExe(t *testing.T) {
	bad := []string{
		injectExe,
		`hdc.exe"`,
		`"hdc.exe"`,
		`C:\tools\hdc.exe" x`,
		"hdc\x00.exe", "hdc\t.exe", "hdc\n.exe", "hdc\r.exe", "hdc\x1b.exe", "hdc\x7f.exe",
		"", " hdc.exe", "hdc.exe ", "hdc.exe.", "hdc.exe...", `C:\tools \hdc.exe`, `C:\tools.\hdc.exe`,
		"hdc.exe:evil", `C:\tools\hdc.exe:stream`, `C:\tools\hdc.exe::$DATA`,
		"hdc%PATH%.exe", "hdc^.exe", "a&b.exe", "a|b.exe", "a<b.exe", "a>b.exe", "a!b.exe",
		"a,b.exe", "a;b.exe", "a=b.exe", "a?.exe", "a*.exe",
		`..\hdc.exe`, `.\hdc.exe`, `tools\hdc.exe`, "tools/hdc.exe", "./hdc", "../hdc",
		`C:hdc.exe`, `\hdc.exe`, `C:\tools\..\evil\hdc.exe`, `C:\tools\.\hdc.exe`, `C:\tools\\hdc.exe`,
		"/usr/bin/../bin/printf", "/usr//bin/printf", "/usr/bin/", `/tmp\x.exe`,
		`\\host`, `\\host\`, `\\?\C:/x.exe`,
		"NUL", "nul.exe", `C:\tools\CON`, `C:\x\com1.exe`, "LPT9.exe",
		"hdc\u00a0.exe", "hdc\u3000.exe", "hdc\u202e.exe", "hdc\u200b.exe", "hdc\ufeff.exe",
		"hdc\uff02.exe", "C:\\x\u00a5hdc.exe", "C:\\x\uff3chdc.exe", "hdc\u201d.exe",
		"hdc\xff.exe", "hdc\u02ba x.exe", "hdc\u02c6.exe", "a\u01c3b.exe", "a\u01c0b.exe",
	}
	for _, allow := range [][]string{nil, {"*"}} {
		p := Policy{AllowExe: allow}
		for _, exe := range bad {
			got, err := p.CheckExe(exe)
			if !errors.Is(err, ErrInvalidExe) {
				t.Errorf("AllowExe %q, exe %q: got %q, %v; want ErrInvalidExe", allow, exe, got, err)
			}
		}
	}
	// Names and paths Windows takes as written stay allowed.
	p := Policy{AllowExe: []string{"*"}}
	for _, exe := range []string{
		`C:\Program Files (x86)\Huawei\hdc.exe`, "hdc-2.0_x64.exe", `C:\工具\hdc.exe`, `C:\ツール\hdc.exe`, `C:\PROGRA~1\x.exe`,
		`\\wsl.localhost\Ubuntu\home\u\x`, `\\host\c$\x.exe`, "/home/u/.local/bin/tool", "O'Brien.exe",
		`C:\{guid}\[1]\@x+y#z$.exe`,
	} {
		if _, err := p.CheckExe(exe); err != nil {
			t.Errorf("%q refused: %v", exe, err)
		}
	}
}

func TestPolicyCheckEnv(t *testing.T) {
	p := Policy{AllowEnv: []string{"HDC_SERVER_PORT"}}
	if err := p.CheckEnv(map[string]string{"hdc_server_port": "1"}); err != nil {
		t.Errorf("allowed name refused: %v", err)
	}
	err := p.CheckEnv(map[string]string{"PATH": "x"})
	var na *NotAllowedError
	if !errors.As(err, &na) || na.Setting != "ALLOW_ENV" || na.Value != "PATH" {
		t.Errorf("err = %v, want NotAllowedError for ALLOW_ENV", err)
	}
	if err := (&Policy{}).CheckEnv(nil); err != nil {
		t.Errorf("no env: %v", err)
	}
}

// TestPolicyRefusesWSLENVSyntax: WSLENV is NAME/flags:NAME, so a name with
// ":" or "/" would name more variables (the server's own) for export to
// Windows. No allowlist, "*" included, lets them through.
func TestPolicyRefusesWSLENVSyntax(t *testing.T) {
	p := Policy{AllowEnv: []string{"*"}}
	for _, name := range []string{"A:PATH", "A/u", "HDC:HOME/p", ":", "/", "", "A=B", "A\x00", "A\nB"} {
		if err := p.CheckEnv(map[string]string{name: "x"}); !errors.Is(err, ErrInvalidEnv) {
			t.Errorf("name %q: err = %v, want ErrInvalidEnv", name, err)
		}
	}
	if err := p.CheckEnv(map[string]string{"HDC_SERVER_PORT": "1", "MyTool(x86)": "x"}); err != nil {
		t.Errorf("plain names refused: %v", err)
	}
}

// TestPolicyStarSparesLauncherEnv: "*" is for the program's own settings,
// not for LD_PRELOAD (code in the Linux launcher or program), WSL interop
// or wine; those pass only when listed by name.
func TestPolicyStarSparesLauncherEnv(t *testing.T) {
	star := Policy{AllowEnv: []string{"*"}}
	for _, name := range []string{"LD_PRELOAD", "ld_library_path", "DYLD_INSERT_LIBRARIES", "WSLENV", "WSL_INTEROP", "WINEPREFIX", "WINEDLLOVERRIDES"} {
		var na *NotAllowedError
		if err := star.CheckEnv(map[string]string{name: "x"}); !errors.As(err, &na) {
			t.Errorf(`"*" allowed %s: %v`, name, err)
		}
		listed := Policy{AllowEnv: []string{name}}
		if err := listed.CheckEnv(map[string]string{name: "x"}); err != nil {
			t.Errorf("%s listed by name refused: %v", name, err)
		}
	}
}

// recordingBackend records what it was asked to run, to prove refused
// requests do not run and allowed ones run what was checked.
type recordingBackend struct{ reqs []Request }

func (b *recordingBackend) Run(_ context.Context, req *Request) (*Result, error) {
	b.reqs = append(b.reqs, *req)
	return &Result{}, nil
}

func TestExecutorRefusesBeforeRunning(t *testing.T) {
	b := &recordingBackend{}
	e := mustNew(t, Config{Runner: b})
	_, err := e.Run(context.Background(), Request{Exe: "cmd.exe"})
	var na *NotAllowedError
	if !errors.As(err, &na) || na.Setting != "ALLOW_EXE" {
		t.Fatalf("err = %v, want NotAllowedError", err)
	}
	_, err = e.Run(context.Background(), Request{Exe: "hdc", Env: map[string]string{"X": "1"}})
	if !errors.As(err, &na) || na.Setting != "ALLOW_ENV" {
		t.Fatalf("err = %v, want NotAllowedError for env", err)
	}
	for _, exe := range []string{injectExe, `C:\evil\hdc.exe`, `\\host\share\hdc.exe`, `..\hdc.exe`} {
		if _, err := e.Run(context.Background(), Request{Exe: exe}); err == nil {
			t.Errorf("%q ran", exe)
		}
	}
	if len(b.reqs) != 0 {
		t.Fatalf("backend ran %d times for refused requests", len(b.reqs))
	}
	if _, err := e.Run(context.Background(), Request{Exe: "hdc"}); err != nil || len(b.reqs) != 1 {
		t.Fatalf("allowed request: err %v runs %d", err, len(b.reqs))
	}
}

// TestExecutorRunsWhatWasChecked: the backend receives the program the
// policy matched, in the listed spelling, not the request's string.
func TestExecutorRunsWhatWasChecked(t *testing.T) {
	b := &recordingBackend{}
	e := mustNew(t, Config{
		Runner: b,
		HDCExe: `C:\sdk\hdc.exe`,
		Policy: Policy{AllowExe: []string{"hdc.exe", `C:\Windows\System32\cmd.exe`}},
	})
	tests := []struct{ exe, cwd, wantExe, wantCwd string }{
		{"HDC.exe", "", "hdc.exe", ""},
		{"/mnt/c/windows/system32/CMD.EXE", "C:/Users", `C:\Windows\System32\cmd.exe`, `C:\Users`},
		// The configured HDC_EXE is what the name entry means besides the
		// search path; another directory is not.
		{`c:/SDK/hdc.exe`, "/mnt/c/x", `C:\sdk\hdc.exe`, "/mnt/c/x"},
	}
	for _, tt := range tests {
		b.reqs = nil
		if _, err := e.Run(context.Background(), Request{Exe: tt.exe, Cwd: tt.cwd}); err != nil {
			t.Fatalf("%q: %v", tt.exe, err)
		}
		if got := b.reqs[0]; got.Exe != tt.wantExe || got.Cwd != tt.wantCwd {
			t.Errorf("%q in %q: backend ran %q in %q, want %q in %q", tt.exe, tt.cwd, got.Exe, got.Cwd, tt.wantExe, tt.wantCwd)
		}
	}
	if _, err := e.Run(context.Background(), Request{Exe: `C:\other\hdc.exe`}); err == nil {
		t.Error(`C:\other\hdc.exe allowed by HDC_EXE=C:\sdk\hdc.exe`)
	}
}

// TestExecutorRefusesCwd: a network share makes Windows connect and
// authenticate to the host; device paths reach past the file system; a
// relative directory depends on the server's own.
func TestExecutorRefusesCwd(t *testing.T) {
	b := &recordingBackend{}
	e := mustNew(t, Config{Runner: b})
	for _, cwd := range []string{
		`\\evil\share`, `//evil/share/x`, `\\?\C:\`, `\\.\C:\`, `\??\C:\`, `..\x`, "x", `C:x`, `C:\x"y`,
		`C:\x\..\y`, "/tmp/../etc", "C:\\x\ny", `C:\x:ads`,
		// Go's Unicode case folding takes U+017F (long s) for "s";
		// Windows does not, and connects to the host "wſl.localhost".
		"\\\\w\u017fl.localhost\\Ubuntu\\home", "\\\\w\u017fl$\\Ubuntu", "\\\\W\u017fL.LOCALHOST\\Ubuntu",
	} {
		if _, err := e.Run(context.Background(), Request{Exe: "hdc", Cwd: cwd}); !errors.Is(err, ErrInvalidCwd) {
			t.Errorf("cwd %q: err = %v, want ErrInvalidCwd", cwd, err)
		}
	}
	if len(b.reqs) != 0 {
		t.Fatalf("backend ran %d times", len(b.reqs))
	}
	for _, cwd := range []string{`C:\`, `C:\Windows`, "/mnt/c", "/", "/home/u", `\\wsl.localhost\Ubuntu\home\u`, `\\wsl$\Ubuntu`} {
		if _, err := e.Run(context.Background(), Request{Exe: "hdc", Cwd: cwd}); err != nil {
			t.Errorf("cwd %q: %v", cwd, err)
		}
	}
}

func mustNew(t *testing.T, cfg Config) *Executor {
	t.Helper()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }
