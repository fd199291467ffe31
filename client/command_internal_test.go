package client

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestCmdLineQuoting(t *testing.T) {
	got := cmdLine(`C:\Windows\System32\cmd.exe`, `C:\Program Files\nodejs\npx.cmd`,
		[]string{"-y", "@scope/pkg@1.0", `a b`, `say "hi" & del *`, `C:\dir\`, "%PATH%"})
	want := `C:\Windows\System32\cmd.exe /d /s /c "C:\Program^ Files\nodejs\npx.cmd ^^^"-y^^^" ^^^"@scope/pkg@1.0^^^" ^^^"a^^^ b^^^" ^^^"say^^^ \^^^"hi\^^^"^^^ ^^^&^^^ del^^^ ^^^*^^^" ^^^"C:\dir\\^^^" ^^^"^^^%PATH^^^%^^^""`
	if got != want {
		t.Errorf("cmdLine:\n got %s\nwant %s", got, want)
	}
	for in, want := range map[string]string{
		`plain`:   `"plain"`,
		`a"b`:     `"a\"b"`,
		`tail\`:   `"tail\\"`,
		`x\\"y`:   `"x\\\\\"y"`,
		``:        `""`,
		`in\side`: `"in\side"`,
	} {
		if got := quoteArg(in); got != want {
			t.Errorf("quoteArg(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestNpxCommand(t *testing.T) {
	cmd, err := Npx("@modelcontextprotocol/server-everything@2026.8.31", "stdio")
	if err != nil || !cmd.IsNpx() || !slices.Equal(cmd.Args, []string{"-y", "@modelcontextprotocol/server-everything@2026.8.31", "stdio"}) {
		t.Errorf("Npx: %+v %v", cmd, err)
	}
	if cmd.name() != "npx @modelcontextprotocol/server-everything@2026.8.31" {
		t.Errorf("name %q", cmd.name())
	}
	for _, bad := range []string{"", "-y", "a b"} {
		if _, err := Npx(bad); err == nil {
			t.Errorf("Npx(%q) accepted", bad)
		}
	}
	for path, want := range map[string]bool{"npx": true, `C:\node\npx.cmd`: true, "/usr/bin/npx": true, "npm": false, "npxx": false} {
		if (&Command{Path: path}).IsNpx() != want {
			t.Errorf("IsNpx(%q) != %v", path, want)
		}
	}
}

func TestMergeEnv(t *testing.T) {
	got := mergeEnv([]string{"PATH=/bin", "HOME=/root"}, []string{"path=/x", "A=1", "HOME=/home"}, false)
	if !slices.Equal(got, []string{"PATH=/bin", "HOME=/home", "path=/x", "A=1"}) {
		t.Errorf("posix: %v", got)
	}
	got = mergeEnv([]string{"Path=C:\\bin"}, []string{"PATH=C:\\x"}, true)
	if !slices.Equal(got, []string{"PATH=C:\\x"}) {
		t.Errorf("windows: %v", got)
	}
}

func TestRingKeepsTheTail(t *testing.T) {
	r := newRing(10)
	r.Write([]byte("0123"))
	if string(r.Bytes()) != "0123" {
		t.Errorf("%q", r.Bytes())
	}
	r.Write([]byte("456789ab"))
	if string(r.Bytes()) != "23456789ab" {
		t.Errorf("%q", r.Bytes())
	}
	r.Write([]byte("cd"))
	if string(r.Bytes()) != "456789abcd" {
		t.Errorf("%q", r.Bytes())
	}
	r.Write(bytes.Repeat([]byte("z"), 25))
	if string(r.Bytes()) != strings.Repeat("z", 10) {
		t.Errorf("%q", r.Bytes())
	}
}

func TestBackoffGrowsToTheCap(t *testing.T) {
	rp := &RestartPolicy{InitialDelay: 100 * time.Millisecond, MaxDelay: time.Second, Multiplier: 2, Jitter: 0.2}
	for n, base := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 4: 800 * time.Millisecond, 10: time.Second} {
		for range 50 {
			d := backoff(rp, n)
			if d < base*8/10 || d > base*12/10 {
				t.Fatalf("backoff(%d) = %v, want %v ± 20%%", n, d, base)
			}
		}
	}
}

func TestExitErrorMessage(t *testing.T) {
	e := &ExitError{Pid: 42, Code: 3, Stderr: append(bytes.Repeat([]byte("noise\n"), 1000), "the real reason\n"...)}
	msg := e.Error()
	if !strings.Contains(msg, "exited with status 3") || !strings.HasSuffix(msg, "the real reason") || len(msg) > maxStderrInError+100 {
		t.Errorf("message of %d bytes: %.100s", len(msg), msg)
	}
}
