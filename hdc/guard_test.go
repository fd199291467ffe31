package hdc_test

import (
	"testing"

	"github.com/winbridge/winbridge/hdc"
)

// Each class of argument list the guard once let through without confirm.
// hdc finds its command as SplitOptionAndCommand does (src/host/main.cpp):
// the first registered command at any position, before options are read.

func TestGuardVerbAtAnyPosition(t *testing.T) {
	for _, tc := range []struct {
		args []string
		verb string
	}{
		// -t and -l do not take a command as their value: hdc finds the
		// command first and getopt then sees a -t without a value.
		{[]string{"-t", "install", "x.hap"}, "install"},
		{[]string{"-l", "uninstall", "com.x"}, "uninstall"},
		{[]string{"-s", "kill"}, "kill"},
		{[]string{"-t", "target", "boot"}, "target boot"},
		{[]string{"-e", "smode"}, "smode"},
		{[]string{"-t", "K", "-l", "tmode", "usb"}, "tmode"},
		{[]string{"junk", "sideload", "x"}, "sideload"},
	} {
		c := hdc.ParseArgs(tc.args)
		if c.Verb != tc.verb || !c.Destructive {
			t.Errorf("ParseArgs(%q): verb %q destructive %v; want %q, destructive", tc.args, c.Verb, c.Destructive, tc.verb)
		}
	}
	// The value hdc does read: -t K before the command.
	if c := hdc.ParseArgs([]string{"-t", "K", "-l", "tmode", "usb"}); c.ConnectKey != "K" {
		t.Errorf("key %q, want K", c.ConnectKey)
	}
	if c := hdc.ParseArgs([]string{"-t", "install", "x.hap"}); c.ConnectKey != "" {
		t.Errorf("-t before the command has no value for hdc, got key %q", c.ConnectKey)
	}
}

func TestGuardTwoWordsInOneElement(t *testing.T) {
	for _, args := range [][]string{
		{"target boot"}, {"target mount"}, {"-t", "K", "target boot", "-bootloader"}, {"target boot", "-recovery"},
	} {
		if c := hdc.ParseArgs(args); !c.Destructive {
			t.Errorf("ParseArgs(%q) = %+v: not destructive", args, c)
		}
	}
	if c := hdc.ParseArgs([]string{"list targets", "-v"}); c.Verb != "list targets" || c.Destructive || c.Device {
		t.Errorf("list targets as one element: %+v", c)
	}
	// One element holding more than the command is not a command.
	if c := hdc.ParseArgs([]string{"target boot x"}); c.Verb != "" || c.Destructive {
		t.Errorf("\"target boot x\": %+v", c)
	}
}

func TestGuardStartRestart(t *testing.T) {
	// main.cpp restarts the server when the command line contains " -r"
	// anywhere; an element with a space is quoted but still contains it.
	for _, args := range [][]string{
		{"start", "-r"}, {"start", "-rr"}, {"start", "-r9"}, {"start", "x", "-r"}, {"start", "x -r"},
		{"-t", "K", "start", "-rx"}, {"start", "", "-r"},
	} {
		if c := hdc.ParseArgs(args); !c.Destructive {
			t.Errorf("ParseArgs(%q) = %+v: not destructive", args, c)
		}
	}
	for _, args := range [][]string{{"start"}, {"start", "x-r"}, {"start", "--r"}} {
		if c := hdc.ParseArgs(args); c.Destructive || c.Verb != "start" {
			t.Errorf("ParseArgs(%q) = %+v: want a harmless start", args, c)
		}
	}
}

func TestGuardGlobalOptions(t *testing.T) {
	// The elements before the command are re-split on white space and
	// read by getopt: one element can hold several options.
	for _, args := range [][]string{
		{"-t", "K -m -s 0.0.0.0:8710", "shell", "ls"},
		{"-m"},
		{"-m", "-s", "0.0.0.0:8710"},
		{"-pm", "list", "targets"},
		{"-s", "0.0.0.0:8710", "list", "targets"},
		{"-s192.168.1.5:8710", "shell", "ls"},
		{"-e", "0.0.0.0", "list", "targets"},
		{"-N"},
		{"x\t-m", "list", "targets"},
		{"-t", "K", "junk", "-m", "shell", "ls"}, // GNU getopt keeps looking past junk
	} {
		if c := hdc.ParseArgs(args); !c.Destructive {
			t.Errorf("ParseArgs(%q) = %+v: not destructive", args, c)
		}
	}
	for _, args := range [][]string{
		{"-t", "K", "shell", "ls"}, {"-tK", "-l5", "shell", "ls"}, {"-p", "list", "targets"},
		{"-s", "8710", "list", "targets"}, {"-s", "127.0.0.1:8710", "list", "targets"}, {"-s", "::1:8710", "checkserver"},
		{"-t", "-m", "shell", "ls"}, // -m is -t's value here, not an option
		{"--", "-m", "list", "targets"},
	} {
		if c := hdc.ParseArgs(args); c.Destructive {
			t.Errorf("ParseArgs(%q) = %+v: want harmless", args, c)
		}
	}
	if c := hdc.ParseArgs([]string{"-t", "K -m", "shell", "ls"}); c.ConnectKey != "K" {
		t.Errorf("key %q, want K", c.ConnectKey)
	}
}

func TestGuardHilogParse(t *testing.T) {
	// client.cpp's IsCaptureCommand: "hilog", spaces, then "parse" as a
	// prefix; hdc runs that line on the host through popen.
	for _, args := range [][]string{
		{"hilog", "parse"}, {"hilog", "parse", "-i", "x"}, {"hilog", "", "parse"}, {"hilog", "parsex"},
		{"-t", "K", "hilog", "parse;id"},
	} {
		c := hdc.ParseArgs(args)
		if !c.Refused || !hdc.IsDestructive(c.Verb, c.Rest) {
			t.Errorf("ParseArgs(%q) = %+v: want refused", args, c)
		}
	}
	for _, args := range [][]string{{"hilog"}, {"hilog", "-x"}, {"hilog", " parse"}, {"hilog", "x", "parse"}} {
		if c := hdc.ParseArgs(args); c.Refused || c.Destructive {
			t.Errorf("ParseArgs(%q) = %+v: want harmless", args, c)
		}
	}
}

func TestGuardDestructiveVerbs(t *testing.T) {
	for _, args := range [][]string{
		{"keygen", "hdckey"}, {"tconn", "1.2.3.4:5555"}, {"tconn", "1.2.3.4:5555", "-remove"}, {"reconnect"},
		{"killall-sub"}, {"spawn-sub"}, {"rport", "tcp:1", "tcp:2"}, {"fport", "rm", "tcp:1 tcp:2"},
		{"update", "x"}, {"flash", "x"}, {"erase", "x"}, {"format", "x"},
		// Writes on this machine: the host side of file recv, and the
		// local log file of bugreport (even a name made of a space).
		{"file", "recv", "/data/x", "/home/u/.bashrc"}, {"file recv", "/data/x", "a"}, {"bugreport", "out.txt"},
		{"bugreport", " "}, {"-t", "K", "bugreport", "C:\\x"},
		// Reads on this machine: file send copies any local file where
		// hdc shell reads it back.
		{"file", "send", "a", "/data/local/tmp/a"}, {"-t", "K", "file send", "/home/u/.ssh/id_rsa", "/data/x"},
	} {
		if c := hdc.ParseArgs(args); !c.Destructive {
			t.Errorf("ParseArgs(%q) = %+v: not destructive", args, c)
		}
	}
	for _, args := range [][]string{
		{"fport", "ls"}, {"discover"}, {"any"}, {"checkdevice", "K"}, {"jpid"}, {"track-jpid", "-p"},
		{"bugreport"}, {"bugreport", ""}, {"shell", "ls"},
	} {
		if c := hdc.ParseArgs(args); c.Destructive || c.Refused {
			t.Errorf("ParseArgs(%q) = %+v: want harmless", args, c)
		}
	}
}
