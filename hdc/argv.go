package hdc

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Command describes an hdc argument list: the options before the command,
// the command itself and what the tools need to know about it.
type Command struct {
	// Verb is the hdc command: "shell", "file send", "list targets",
	// "version"... Empty when the arguments hold no command hdc knows.
	Verb string
	// Rest are the arguments after the verb.
	Rest []string
	// ConnectKey is the value of a -t option, if any.
	ConnectKey string
	// Device reports that the command runs against a device (and so needs
	// one device to be chosen), as opposed to a command of the hdc server
	// or client alone (list targets, version, kill, start...).
	Device bool
	// Destructive reports a command that changes the device or the hdc
	// server in a way that cannot be undone by reading: see IsDestructive.
	Destructive bool
}

// twoWordVerbs are the hdc commands made of two words.
var twoWordVerbs = []string{"list targets", "file send", "file recv", "target mount", "target boot"}

// oneWordVerbs are the one-word hdc commands (from hdc's IsRegisterCommand;
// "wait" matches as a prefix, like hdc's "wait-for").
var oneWordVerbs = []string{
	"version", "help", "discover", "checkserver", "checkdevice", "any", "tconn", "shell", "fport", "rport",
	"kill", "start", "keygen", "install", "uninstall", "hilog", "smode", "bugreport", "tmode", "sideload",
	"jpid", "track-jpid", "update", "flash", "erase", "format",
}

// serverVerbs run on the hdc client or server without a device.
var serverVerbs = []string{"version", "help", "discover", "list targets", "checkserver", "kill", "start", "keygen", "tconn", "any", "wait"}

// destructiveVerbs change a device or the hdc server whatever their
// arguments; "start -r" and "fport rm" are handled in IsDestructive.
var destructiveVerbs = []string{
	"install", "uninstall", "sideload", "kill", "target boot", "target mount", "tmode", "smode",
	"update", "flash", "erase", "format",
}

// ParseArgs reads an hdc argument list (without the program name) the way
// hdc's client does: global options (-t KEY, -s ADDR, -l N, -v, -h...)
// first, then the first registered command.
func ParseArgs(args []string) Command {
	var c Command
	for i := 0; i < len(args); i++ {
		a := args[i]
		if v, n := matchVerb(args[i:]); v != "" {
			c.Verb, c.Rest = v, args[i+n:]
			break
		}
		if len(a) >= 2 && a[0] == '-' {
			switch a[1] {
			case 't', 's', 'l', 'e', 'd':
				val := a[2:]
				if val == "" && i+1 < len(args) {
					i++
					val = args[i]
				}
				if a[1] == 't' {
					c.ConnectKey = val
				}
			case 'v':
				c.Verb = "version"
				return c.classify()
			case 'h':
				c.Verb = "help"
				return c.classify()
			}
		}
	}
	return c.classify()
}

func matchVerb(args []string) (string, int) {
	if len(args) >= 2 {
		two := args[0] + " " + args[1]
		if slices.Contains(twoWordVerbs, two) {
			return two, 2
		}
	}
	if len(args) >= 1 {
		if slices.Contains(oneWordVerbs, args[0]) {
			return args[0], 1
		}
		if strings.HasPrefix(args[0], "wait") {
			return "wait", 1
		}
	}
	return "", 0
}

func (c Command) classify() Command {
	c.Device = c.Verb != "" && !slices.Contains(serverVerbs, c.Verb)
	if c.Verb == "fport" && len(c.Rest) > 0 && (c.Rest[0] == "ls" || c.Rest[0] == "rm") {
		c.Device = false
	}
	c.Destructive = IsDestructive(c.Verb, c.Rest)
	return c
}

// IsDestructive reports whether the hdc command verb with the arguments rest
// changes the device or the hdc server: install, uninstall, sideload, kill,
// start -r, target boot, target mount, tmode, smode, fport rm, update,
// flash, erase and format. The tools run those only with confirm: true.
func IsDestructive(verb string, rest []string) bool {
	switch {
	case slices.Contains(destructiveVerbs, verb):
		return true
	case verb == "start":
		return slices.Contains(rest, "-r")
	case verb == "fport":
		return len(rest) > 0 && rest[0] == "rm"
	}
	return false
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
// cannot forge it without knowing the nonce.
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
		lineEnd := k
		switch {
		case lineEnd == len(out):
		case out[lineEnd] == '\n':
			lineEnd++
		case out[lineEnd] == '\r' && lineEnd+1 < len(out) && out[lineEnd+1] == '\n':
			lineEnd += 2
		default:
			continue
		}
		// And start a line after the wrapper's blank line.
		start := i
		switch {
		case start >= 2 && out[start-2] == '\r' && out[start-1] == '\n':
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
