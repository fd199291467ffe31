package hdc_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/winbridge/winbridge/hdc"
)

func TestParseArgs(t *testing.T) {
	for _, tc := range []struct {
		args                []string
		verb, key           string
		device, destructive bool
	}{
		{[]string{"-v"}, "", "", false, false}, // an option: hdc prints its version
		{[]string{"version"}, "version", "", false, false},
		{[]string{"list", "targets", "-v"}, "list targets", "", false, false},
		{[]string{"-t", "K1", "shell", "ls | wc -l"}, "shell", "K1", true, false},
		{[]string{"-tK2", "shell", "ls"}, "shell", "K2", true, false},
		{[]string{"-s", "127.0.0.1:8710", "-t", "K", "file", "send", "a", "/b"}, "file send", "K", true, true},
		{[]string{"file", "recv", "/b", "a"}, "file recv", "", true, true},
		{[]string{"install", "-r", "a.hap"}, "install", "", true, true},
		{[]string{"uninstall", "com.x"}, "uninstall", "", true, true},
		{[]string{"sideload", "x"}, "sideload", "", true, true},
		{[]string{"kill"}, "kill", "", false, true},
		{[]string{"kill", "-r"}, "kill", "", false, true},
		{[]string{"start"}, "start", "", false, false},
		{[]string{"start", "-r"}, "start", "", false, true},
		{[]string{"target", "boot"}, "target boot", "", true, true},
		{[]string{"target", "mount"}, "target mount", "", true, true},
		{[]string{"tmode", "usb"}, "tmode", "", true, true},
		{[]string{"smode"}, "smode", "", true, true},
		{[]string{"fport", "rm", "tcp:1 tcp:2"}, "fport", "", false, true},
		{[]string{"fport", "ls"}, "fport", "", false, false},
		{[]string{"fport", "tcp:1", "tcp:2"}, "fport", "", true, true},
		{[]string{"hilog"}, "hilog", "", true, false},
		{[]string{"wait-for-device"}, "wait-for-device", "", false, false},
		{[]string{"frobnicate"}, "", "", false, false},
		{nil, "", "", false, false},
	} {
		c := hdc.ParseArgs(tc.args)
		if c.Verb != tc.verb || c.ConnectKey != tc.key || c.Device != tc.device || c.Destructive != tc.destructive {
			t.Errorf("ParseArgs(%q) = %+v, want verb %q key %q device %v destructive %v", tc.args, c, tc.verb, tc.key, tc.device, tc.destructive)
		}
	}
}

func TestNeedsEncoding(t *testing.T) {
	for s, want := range map[string]bool{
		"ls /data | grep log | wc -l":  false,
		"echo $HOME; exit 3 # comment": false,
		"echo 'single'":                false,
		`echo "double"`:                true,
		`echo a\b`:                     true,
		"echo 中文":                      true,
		"echo é":                       true,
		"a\nb":                         true,
		"a\tb":                         true,
		"":                             true,
	} {
		if got := hdc.NeedsEncoding(s); got != want {
			t.Errorf("NeedsEncoding(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestPlanShell(t *testing.T) {
	p := hdc.PlanShell("ls /data | wc -l", false, "abc123")
	if p.Encoded || p.Wire != `sh -c 'ls /data | wc -l';r=$?;echo;echo __WB_RC_abc123=$r` {
		t.Errorf("plain plan: %+v", p)
	}
	cmd := `printf '%s' "中文 \ $x"`
	p = hdc.PlanShell(cmd, false, "abc123")
	if !p.Encoded || p.Script != cmd {
		t.Fatalf("encoded plan: %+v", p)
	}
	if strings.ContainsAny(p.Wire, "\"'\\") || strings.ContainsFunc(p.Wire, func(r rune) bool { return r > 0x7e }) {
		t.Errorf("an encoded wire must hold no quote, backslash or non-ASCII: %q", p.Wire)
	}
	if !strings.Contains(p.Wire, base64.StdEncoding.EncodeToString([]byte(cmd))) {
		t.Errorf("wire %q does not carry the base64 of the command", p.Wire)
	}
	p = hdc.PlanShell("ls", true, "n1")
	if !p.Encoded || !strings.HasPrefix(p.Script, "busybox true") || !strings.Contains(p.Script, `; do eval "$t() { busybox $t \"\$@\"; }"; done`) || !strings.HasSuffix(p.Script, "\nls") {
		t.Errorf("busybox plan: %+v", p)
	}
	if a, b := hdc.NewNonce(), hdc.NewNonce(); a == b || len(a) != 12 {
		t.Errorf("nonces %q %q", a, b)
	}
}

func TestCutSentinel(t *testing.T) {
	const n = "0123456789ab"
	for _, tc := range []struct {
		name, in, want string
		status         int
		ok             bool
	}{
		{"plain", "hello\n\n__WB_RC_" + n + "=0\n", "hello\n", 0, true},
		{"no newline", "abc\n__WB_RC_" + n + "=3\n", "abc", 3, true},
		{"empty", "\n__WB_RC_" + n + "=0\n", "", 0, true},
		{"crlf", "x\r\n\r\n__WB_RC_" + n + "=255\r\n", "x\r\n", 255, true},
		{"at eof", "x\n\n__WB_RC_" + n + "=7", "x\n", 7, true},
		// A command whose output ends in a CR (a progress line) keeps it:
		// only a sentinel line ending in CRLF says that line breaks became
		// CRLF, so that the wrapper's blank line is a CRLF too.
		{"cr-only line", "10%\r50%\r\n__WB_RC_" + n + "=0\n", "10%\r50%\r", 0, true},
		{"cr-only line, crlf", "50%\r\r\n__WB_RC_" + n + "=0\r\n", "50%\r", 0, true},
		{"later output kept", "x\n\n__WB_RC_" + n + "=1\nlate\n", "x\nlate\n", 1, true},
		{"forged other nonce", "__WB_RC_ffffffffffff=0\n\n__WB_RC_" + n + "=2\n", "__WB_RC_ffffffffffff=0\n", 2, true},
		{"last wins", "\n__WB_RC_" + n + "=0\nmore\n\n__WB_RC_" + n + "=9\n", "\n__WB_RC_" + n + "=0\nmore\n", 9, true},
		{"text not number", "\n__WB_RC_" + n + "=$r\n", "\n__WB_RC_" + n + "=$r\n", 0, false},
		{"mid-line", "abc__WB_RC_" + n + "=0\n", "abc__WB_RC_" + n + "=0\n", 0, false},
		{"missing", "[Fail][E001005] Device not found or connected\n", "[Fail][E001005] Device not found or connected\n", 0, false},
	} {
		got, st, ok := hdc.CutSentinel([]byte(tc.in), n)
		if string(got) != tc.want || st != tc.status || ok != tc.ok {
			t.Errorf("%s: CutSentinel(%q) = %q, %d, %v; want %q, %d, %v", tc.name, tc.in, got, st, ok, tc.want, tc.status, tc.ok)
		}
	}
}

func TestFindFailure(t *testing.T) {
	for _, tc := range []struct {
		out, verb, code string
		fail            bool
	}{
		{"[Fail][E005005] Error opening file: no such file or directory, path:/x\n", "file recv", "E005005", true},
		{"FileTransfer finish, Size:3\n[Fail]ExecuteCommand need connect-key? please confirm a device by help info\n", "shell", "", true},
		{"[E001106]-s content IP incorrect.\n", "", "E001106", true},
		{"Unknown operation command...\n", "", "", true},
		{"[Info]App uninstall path: msg:error: failed to uninstall bundle. code:9568386 error: x\nAppMod finish\n", "uninstall", "9568386", true},
		{"[Info]App install path:/a.hap msg:install bundle successfully.\nAppMod finish\n", "install", "", false},
		{"log line with [Fail] inside\n", "", "", false},
		{"[Empty]\n", "list targets", "", false},
	} {
		f := hdc.FindFailure(tc.out, tc.verb)
		if (f != nil) != tc.fail || (f != nil && f.Code != tc.code) {
			t.Errorf("FindFailure(%q) = %+v, want fail %v code %q", tc.out, f, tc.fail, tc.code)
		}
	}
}

func TestParseTargets(t *testing.T) {
	got := hdc.ParseTargets("7001005458323933328a01bce01c3800\t\tUSB\tConnected\tlocalhost\n127.0.0.1:5555\t\tTCP\tOffline\tunknown...\r\n")
	want := []hdc.Target{
		{Key: "7001005458323933328a01bce01c3800", ConnectionType: "USB", State: "Connected", Name: "localhost"},
		{Key: "127.0.0.1:5555", ConnectionType: "TCP", State: "Offline", Name: "unknown..."},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("-v (-want +got):\n%s", diff)
	}
	got = hdc.ParseTargets("A\nB\tUnauthorized\n")
	if diff := cmp.Diff([]hdc.Target{{Key: "A"}, {Key: "B", State: "Unauthorized"}}, got); diff != "" {
		t.Errorf("plain (-want +got):\n%s", diff)
	}
	if got := hdc.ParseTargets("[Empty]\n"); got == nil || len(got) != 0 {
		t.Errorf("[Empty] gave %#v, want an empty non-nil list", got)
	}
}

// TestWireUnderSh runs wires through the device's path as hdc takes it:
// wrap in quotes (the argument holds spaces), trim and unwrap (hdcd's
// ShellCmdTrim), sh -c. Exit codes and output must come back exactly.
func TestWireUnderSh(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs /bin/sh")
	}
	for _, tc := range []struct {
		cmd    string
		out    string
		status int
	}{
		{"echo hello", "hello\n", 0},
		{"printf abc", "abc", 0},
		{"exit 3", "", 3},
		{"false", "", 1},
		{"echo a # a comment; exit 9", "a\n", 0},
		{"echo unterminated 'quote", "", 2},
		{"true &", "", 0},
		{"printf '%s' 'x\"y\\z $HOME'", "x\"y\\z $HOME", 0},
		{"printf '%s\\n' 中文; exit 4", "中文\n", 4},
		{"cat; echo after", "after\n", 0},
		{"echo a\necho b\nexit 5", "a\nb\n", 5},
		{"kill -9 $$", "", 137},
	} {
		p := hdc.PlanShell(tc.cmd, false, "feedfacecafe")
		wire := `"` + p.Wire + `"`
		wire = strings.Trim(wire, " \t\r\n")
		wire = wire[1 : len(wire)-1]
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cmd := exec.CommandContext(ctx, "/bin/sh", "-c", wire)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		_ = cmd.Run()
		cancel()
		clean, st, ok := hdc.CutSentinel(out.Bytes(), p.Nonce)
		if tc.status == 2 || tc.status == 137 {
			// sh's message (syntax error, Killed) is on the merged output.
			if !ok || st != tc.status {
				t.Errorf("%q: status %d ok %v, output %q", tc.cmd, st, ok, out.Bytes())
			}
			continue
		}
		if !ok || st != tc.status || string(clean) != tc.out {
			t.Errorf("%q (encoded %v): got %q status %d ok %v; want %q status %d", tc.cmd, p.Encoded, clean, st, ok, tc.out, tc.status)
		}
	}
}
