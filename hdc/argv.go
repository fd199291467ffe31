package hdc

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Command is what hdc will do with an argument list, read the way hdc's
// host client reads it (see split.go): the command, the global options
// before it and whether the tools may run it without confirm.
type Command struct {
	// Verb is the registered hdc command hdc finds: "shell", "file send",
	// "list targets", "target boot", "wait-for-device"... Empty when the
	// arguments hold none.
	Verb string
	// Line is the command line hdc builds from the verb and the arguments
	// after it, and dispatches on (without the " remote -cwd DIR" hdc
	// inserts for file transfers and install).
	Line string
	// Rest are the arguments after the verb.
	Rest []string
	// ConnectKey is the value of the last -t option hdc's getopt reads.
	ConnectKey string
	// Device reports that the command runs against a device (and so needs
	// one device to be chosen), as opposed to a command of the hdc server
	// or client alone (list targets, version, kill, start...).
	Device bool
	// Destructive reports a command that changes the device, the hdc
	// server or the host in a way reading cannot undo, one that copies a
	// file of the host to the device (file send), or global options
	// that change how hdc's server runs: see Why. The tools run it only
	// with confirm: true.
	Destructive bool
	// Why says what makes the command destructive, or refused.
	Why string
	// Refused reports a command the tools never run, confirm or not:
	// hilog parse (hdc runs it on the host through a shell), a program
	// name that is itself an hdc command, an argument with a NUL byte.
	Refused bool

	opts []option
}

// Options returns the global options hdc's getopt reads before the
// command, each as "-x" or "-x VALUE".
func (c Command) Options() []string {
	out := make([]string, len(c.opts))
	for i, o := range c.opts {
		out[i] = o.String()
	}
	return out
}

// ParseArgs reads an hdc argument list without the program name; see
// ParseArgv.
func ParseArgs(args []string) Command {
	return ParseArgv(append([]string{"hdc"}, args...))
}

// ParseArgv reads argv, the program and its arguments exactly as they
// will run, the way hdc's host client does: the first registered command
// at any position (also as one element holding a space, such as
// "target boot"), global options from the elements before it re-split on
// white space and read by getopt, and the command line built from the
// rest. The decision is made on that line, as hdc dispatches on it.
func ParseArgv(argv []string) Command {
	var c Command
	for _, a := range argv {
		if strings.IndexByte(a, 0) >= 0 {
			c.Refused, c.Why = true, "an argument holds a NUL byte, which no command line can carry"
			return c
		}
	}
	at, n, optionLine, line := splitArgv(argv)
	if at == 0 {
		c.Refused, c.Why = true, fmt.Sprintf("the program name %q is itself an hdc command", argv[0])
		return c
	}
	c.opts = getopt(splitWords(optionLine))
	for _, o := range c.opts {
		if o.flag == 't' {
			c.ConnectKey = o.value
		}
	}
	if at > 0 {
		c.Line = line
		c.Verb = argv[at]
		if n == 2 {
			c.Verb = argv[at] + " " + argv[at+1]
		}
		c.Rest = argv[at+n:]
	}
	c.Device = c.Verb != "" && !serverCommand(c.Line)
	c.classify()
	return c
}

// serverCommand reports a command line hdc's client or server handles
// without a device: the commands main.cpp runs in the client (keygen,
// kill, killall-sub, start) and AutoConnectKey's list (client.cpp),
// compared by prefix as there.
func serverCommand(line string) bool {
	for _, p := range []string{
		"keygen", "kill", "start", "version", "help", "discover", "spawn-sub", "killall-sub", "list targets",
		"checkserver", "tconn", "reconnect", "checkdevice", "wait", "fport ls", "fport rm",
	} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// sendWhy is why a file send needs confirm.
const sendWhy = "hdc file send copies a file of this machine to the device, where a shell command reads it back"

// destructiveVerbs change a device, the hdc server or the host whatever
// their arguments. docs/HDC.md gives the reason for each.
var destructiveVerbs = []string{
	"install", "uninstall", "sideload", "target boot", "target mount", "smode", "tmode", "kill", "killall-sub",
	"spawn-sub", "keygen", "tconn", "reconnect", "update", "flash", "erase", "format",
}

func (c *Command) classify() {
	if c.Verb == "hilog" && hilogParse(c.Line) {
		c.Refused, c.Why = true, "hdc hilog parse runs on this machine through a shell, not on the device"
		return
	}
	switch {
	case slices.Contains(destructiveVerbs, c.Verb):
		c.Destructive, c.Why = true, "hdc "+c.Verb+" changes the device, the hdc server or this machine"
	case c.Verb == "start" && strings.Contains(c.Line, " -r"):
		// main.cpp: commands.find(" -r") anywhere in the line restarts.
		c.Destructive, c.Why = true, "hdc start with -r restarts the hdc server"
	case (c.Verb == "fport" || c.Verb == "rport") && c.Line != "fport ls":
		c.Destructive, c.Why = true, "hdc "+c.Verb+" adds or removes a port forward that outlives the call"
	case c.Verb == "file recv":
		// The device's file, which hdc shell can write, lands at any
		// path of this machine: a shell profile, a startup folder.
		c.Destructive, c.Why = true, "hdc file recv writes a file or directory on this machine"
	case c.Verb == "file send":
		// Any file of this machine (a private key, a token file) lands on
		// the device, where hdc shell, which needs no confirm, reads it
		// back. hdc_run passes paths as given, relative to hdc's own
		// directory or -cwd, so no root is judged here: hdc_file_send
		// does that.
		c.Destructive, c.Why = true, sendWhy
	case c.Verb == "bugreport" && len(c.Line) > len("bugreport "):
		// translate.cpp and host_unity.cpp: "bugreport PATH" opens PATH
		// here with O_CREAT|O_TRUNC; "bugreport" alone prints.
		c.Destructive, c.Why = true, "hdc bugreport with a path creates or truncates that file on this machine"
	}
	if c.Destructive {
		return
	}
	for _, o := range c.opts {
		if why := optionRisk(o); why != "" {
			c.Destructive, c.Why = true, why
			return
		}
	}
}

// optionRisk says why a global option changes hdc's server, or "" for the
// options that do not: -t KEY, -l LEVEL, -p, -v, -h, -f, -s with a
// loopback address or a bare port, and letters hdc ignores.
func optionRisk(o option) string {
	switch o.flag {
	case 't', 'l', 'p', 'v', 'h', 'f':
		return ""
	case 's':
		if loopbackServer(o.value) {
			return ""
		}
		return fmt.Sprintf("the global option -s %s makes hdc talk to, or start, a server at a non-loopback address", o.value)
	case 'm', 'N':
		return fmt.Sprintf("the global option -%c runs an hdc server", o.flag)
	case 'e':
		return fmt.Sprintf("the global option -e %s makes port forwards listen on that address", o.value)
	case 'n', 'c', 'S', 'd', 'o', 'i', 'L':
		return fmt.Sprintf("the global option %s changes how hdc's server runs", o)
	}
	return ""
}

// loopbackServer reports an -s value that names the local server: a bare
// port (hdc reads it as 127.0.0.1:PORT), or 127.0.0.1, ::1 or
// ::ffff:127.0.0.1 with a port.
func loopbackServer(v string) bool {
	port := v
	if i := strings.LastIndexByte(v, ':'); i >= 0 {
		switch v[:i] {
		case "127.0.0.1", "::1", "::ffff:127.0.0.1":
		default:
			return false
		}
		port = v[i+1:]
	}
	return port != "" && len(port) <= 5 && strings.Trim(port, "0123456789") == ""
}

// IsDestructive reports whether the hdc command verb with the arguments
// rest is destructive: install, uninstall, sideload, target boot, target
// mount, smode, tmode, kill, killall-sub, spawn-sub, keygen, tconn,
// reconnect, update, flash, erase, format, start with -r, fport or rport
// other than "fport ls", file send, file recv, and bugreport with a path. The tools run those only with confirm:
// true; hdc hilog parse they never run.
func IsDestructive(verb string, rest []string) bool {
	c := ParseArgs(append(strings.Fields(verb), rest...))
	return c.Destructive || c.Refused
}

// The shell wrapper. A device command reaches hdc as one argument after
// "shell"; hdc wraps an argument holding a space in double quotes, the
// device trims white space and one pair of surrounding quotes and runs the
// rest with sh -c. The wrapper runs the user's script in its own sh -c (so
// that exit, comments and syntax errors stay inside it) and then prints a
// blank line and a per-call sentinel carrying $?:
//
//	sh -c '<script>';r=$?;echo;echo __WB_RC_<nonce>=$r
//
// A script with bytes outside printable ASCII, a double quote or a
// backslash travels base64-encoded, so that neither the Windows ANSI code
// page nor any layer's quoting can touch it:
//
//	set -f;IFS=;s=$(echo <base64>|base64 -d)&&sh -c $s;r=$?;echo;echo __WB_RC_<nonce>=$r
//
// (IFS empty and set -f make the unquoted $s one word without globbing;
// the wire then holds no quote at all.)
const (
	sentinelPrefix  = "__WB_RC_"
	noBusyboxPrefix = "__WB_NOBB_"
)

// busyboxTools are the commands useBusybox routes through busybox.
var busyboxTools = []string{
	"awk", "cat", "cut", "df", "du", "find", "grep", "head", "ls", "md5sum", "ps", "sed", "sort",
	"stat", "tail", "tar", "tr", "uniq", "wc", "xargs",
}

// ShellPlan is how a device command is sent through hdc shell.
type ShellPlan struct {
	// Script is what the device's sh -c runs: the command, after the
	// busybox preamble when asked for.
	Script string
	// Wire is the single argument passed after "shell".
	Wire string
	// Encoded reports that Script travels base64-encoded.
	Encoded bool
	// Nonce makes the sentinel of this call unique.
	Nonce string
}

// NewNonce returns a random 12-hex-digit nonce for a sentinel.
func NewNonce() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// PlanShell wraps command for hdc shell with the sentinel of nonce; with
// busybox, common tools run through busybox and a device without busybox
// is reported by a marker line.
func PlanShell(command string, busybox bool, nonce string) ShellPlan {
	script := command
	if busybox {
		var b strings.Builder
		b.WriteString("busybox true >/dev/null 2>&1 || { echo " + noBusyboxPrefix + nonce + "; exit 127; }\n")
		b.WriteString("for t in " + strings.Join(busyboxTools, " ") + "; do eval \"$t() { busybox $t \\\"\\$@\\\"; }\"; done\n")
		b.WriteString(command)
		script = b.String()
	}
	p := ShellPlan{Script: script, Nonce: nonce}
	tail := ";r=$?;echo;echo " + sentinelPrefix + nonce + "=$r"
	if NeedsEncoding(script) {
		p.Encoded = true
		p.Wire = "set -f;IFS=;s=$(echo " + base64.StdEncoding.EncodeToString([]byte(script)) + "|base64 -d)&&sh -c $s" + tail
	} else {
		p.Wire = "sh -c '" + strings.ReplaceAll(script, "'", `'\''`) + "'" + tail
	}
	return p
}

// NeedsEncoding reports whether a device script must travel
// base64-encoded: it holds a byte outside printable ASCII (lost to the
// Windows ANSI code page, or a control character), a double quote or a
// backslash (quoting rules differ between the layers a command line
// crosses), or is empty.
func NeedsEncoding(script string) bool {
	if script == "" {
		return true
	}
	for i := 0; i < len(script); i++ {
		c := script[i]
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return true
		}
	}
	return false
}

// CutSentinel finds the sentinel of nonce in a shell's output and returns
// the output without it (and without the blank line the wrapper printed
// before it) and the exit status it carries. ok is false when the
// sentinel is missing: the command did not run to its end on the device.
// The last sentinel counts, and only one with a number, so device output
// cannot forge it without knowing the nonce. The device command can learn
// the nonce from its parent's command line, so the status is only as
// trustworthy as the command (docs/HDC.md, The shell wrapper).
func CutSentinel(out []byte, nonce string) (clean []byte, status int, ok bool) {
	mark := []byte(sentinelPrefix + nonce + "=")
	for end := len(out); end > 0; {
		i := bytes.LastIndex(out[:end], mark)
		if i < 0 {
			break
		}
		end = i
		j := i + len(mark)
		k := j
		for k < len(out) && out[k] >= '0' && out[k] <= '9' {
			k++
		}
		if k == j || k-j > 4 {
			continue
		}
		// The line must end right after the number.
		lineEnd, crlf := k, true
		switch {
		case lineEnd == len(out):
		case out[lineEnd] == '\n':
			lineEnd++
			crlf = false
		case out[lineEnd] == '\r' && lineEnd+1 < len(out) && out[lineEnd+1] == '\n':
			lineEnd += 2
		default:
			continue
		}
		// And start a line after the wrapper's blank line, which ends as
		// the sentinel's line does: a CR before a plain LF is the
		// command's own (a progress line), not the wrapper's.
		start := i
		switch {
		case crlf && start >= 2 && out[start-2] == '\r' && out[start-1] == '\n':
			start -= 2
		case start >= 1 && out[start-1] == '\n':
			start--
		default:
			continue
		}
		n, err := strconv.Atoi(string(out[j:k]))
		if err != nil {
			continue
		}
		clean = append(append([]byte(nil), out[:start]...), out[lineEnd:]...)
		return clean, n, true
	}
	return out, 0, false
}

// cutLine removes the first line holding marker, reporting whether there
// was one.
func cutLine(out []byte, marker string) ([]byte, bool) {
	i := bytes.Index(out, []byte(marker))
	if i < 0 {
		return out, false
	}
	s := bytes.LastIndexByte(out[:i], '\n') + 1
	e := bytes.IndexByte(out[i:], '\n')
	if e < 0 {
		e = len(out)
	} else {
		e += i + 1
	}
	return append(append([]byte(nil), out[:s]...), out[e:]...), true
}

// Failure is an error hdc reported in its output while exiting 0.
type Failure struct {
	// Code is hdc's error code such as E005005, or, for install and
	// uninstall, the bundle manager's code; empty when the message has
	// none.
	Code string
	// Message is the line hdc printed.
	Message string
}

var (
	failLineRE    = regexp.MustCompile(`^\s*\[Fail\]\s*(?:\[(E\d{6})\])?`)
	errLineRE     = regexp.MustCompile(`^\s*\[(E\d{6})\]`)
	appErrorRE    = regexp.MustCompile(`msg:error:.*?code:\s*(\d+)`)
	appErrorAnyRE = regexp.MustCompile(`msg:error:`)
)

// FindFailure returns the first failure hdc reported in out: a line that
// starts with [Fail] (with its code when one follows, as in
// "[Fail][E005005] ..."), one that starts with an error code ("[E001106]
// ..."), hdc's "Unknown operation command", or, for install and
// uninstall, the bundle manager's "msg:error: ... code:N".
func FindFailure(out string, verb string) *Failure {
	for line := range strings.Lines(out) {
		line = strings.TrimRight(line, "\r\n")
		if m := failLineRE.FindStringSubmatch(line); m != nil {
			return &Failure{Code: m[1], Message: strings.TrimSpace(line)}
		}
		if m := errLineRE.FindStringSubmatch(line); m != nil {
			return &Failure{Code: m[1], Message: strings.TrimSpace(line)}
		}
		if strings.HasPrefix(line, "Unknown operation command") {
			return &Failure{Message: line}
		}
		if verb == "install" || verb == "uninstall" || verb == "sideload" {
			if m := appErrorRE.FindStringSubmatch(line); m != nil {
				return &Failure{Code: m[1], Message: strings.TrimSpace(line)}
			}
			if appErrorAnyRE.MatchString(line) {
				return &Failure{Message: strings.TrimSpace(line)}
			}
		}
	}
	return nil
}

// Target is one device hdc knows.
type Target struct {
	// Key is the connect key passed with -t.
	Key string `json:"key"`
	// ConnectionType is USB, TCP, UART or BT (list targets -v only).
	ConnectionType string `json:"connectionType,omitempty"`
	// State is Connected, Offline, Ready or Unauthorized (list targets -v,
	// or Unauthorized without -v).
	State string `json:"state,omitempty"`
	// Name is the device name (list targets -v only).
	Name string `json:"name,omitempty"`
}

// ParseTargets reads the output of "hdc list targets" (keys, one a line,
// optionally followed by a tab and "Unauthorized") or of "hdc list targets
// -v" (key, connection type, state and name separated by tabs). [Empty]
// and blank lines give no targets; the result is never nil.
func ParseTargets(out string) []Target {
	ts := []Target{}
	for line := range strings.Lines(out) {
		line = strings.TrimRight(line, "\r\n")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "[") {
			continue // [Empty], [Info], [Fail]
		}
		var f []string
		for x := range strings.SplitSeq(line, "\t") {
			if x = strings.TrimSpace(x); x != "" {
				f = append(f, x)
			}
		}
		if len(f) == 0 {
			continue
		}
		t := Target{Key: f[0]}
		switch {
		case len(f) == 2:
			t.State = f[1]
		case len(f) >= 3:
			t.ConnectionType, t.State = f[1], f[2]
			if len(f) >= 4 {
				t.Name = strings.Join(f[3:], " ")
			}
		}
		ts = append(ts, t)
	}
	return ts
}
