package hdc

import (
	"regexp"
	"strings"
)

// hdcModel is a second, independent model of hdc's host client, written
// as a close transliteration of the C++ control flow of
// openharmony/developtools_hdc (src/host/main.cpp main, IsRegisterCommand,
// SplitOptionAndCommand, GetCommandlineOptions, RunClientMode;
// src/common/base.cpp Base::SplitCommandToArgs; src/host/client.cpp
// ExecuteCommand, IsCaptureCommand, DoCtrlServiceWork;
// src/host/translate.cpp String2FormatCommand; src/host/host_updater.cpp
// CheckMatchUpdate) and sharing no code with ParseArgv. The fuzz target
// compares the two.
type hdcModel struct {
	options string   // outOption
	command string   // outCommand, without AppendCwdWhenTransfer's text
	words   []string // SplitCommandToArgs(outOption)
	opts    []string // what getopt returns: "-c" or "-c VALUE"
	key     string   // RuntimeConfig connectKey
	action  string   // what hdc does with the command
}

// modelRegistered is IsRegisterCommand's list, written out again.
var modelRegistered = [...]string{
	"version", "help", "discover", "list targets", "checkserver", "checkdevice", "wait", "any", "tconn",
	"reconnect", "shell", "shell -", "file send", "file recv", "fport", "rport", "kill", "start", "keygen",
	"install", "uninstall", "target mount", "hilog", "smode", "bugreport", "tmode", "sideload", "target boot",
	"jpid", "track-jpid", "update", "flash", "erase", "format", "spawn-sub", "killall-sub",
}

func modelIsRegisterCommand(out *string, cmd string, cmdnext *string) int {
	sCmdNext := ""
	if cmdnext != nil {
		sCmdNext = *cmdnext
	}
	doubleCommand := cmd + " " + sCmdNext
	for _, v := range modelRegistered {
		if doubleCommand == v {
			*out = doubleCommand
			return 2
		}
		if cmd == v || strncmp(cmd, "wait", 4) {
			*out = cmd
			return 1
		}
	}
	return 0
}

// strncmp reports C's !strncmp(a, b, n).
func strncmp(a, b string, n int) bool {
	if len(a) > n {
		a = a[:n]
	}
	if len(b) > n {
		b = b[:n]
	}
	return a == b
}

func runModel(argv []string) hdcModel {
	var m hdcModel
	argc := len(argv)
	foundCommand := false
	for i := 0; i < argc; i++ {
		if !foundCommand {
			var next *string
			if i != argc-1 {
				next = &argv[i+1]
			}
			resultChild := modelIsRegisterCommand(&m.command, argv[i], next)
			if resultChild > 0 {
				foundCommand = true
				if resultChild == 2 {
					i++
				}
				continue
			}
		}
		if foundCommand {
			if len(m.command) > 0 {
				m.command += " "
			}
			if !strings.Contains(argv[i], " ") {
				m.command += argv[i]
			} else {
				m.command += "\"" + argv[i] + "\""
			}
		} else {
			if len(m.options) > 0 {
				m.options += " "
			}
			if i == 0 {
				m.options += "\"" + argv[i] + "\""
			} else {
				m.options += argv[i]
			}
		}
	}
	m.words = modelSplitCommandToArgs(m.options)
	m.getopt()
	m.action = m.dispatch()
	return m
}

// modelSplitCommandToArgs follows the state machine of
// Base::SplitCommandToArgs: argv slots start at the first character of
// a word or at an opening quote, and a separator ends a word only after
// text.
func modelSplitCommandToArgs(line string) []string {
	if len(line) < 1 {
		return nil
	}
	var args [][]byte
	isQuoted, isText, isSpace := false, false, true
	for i := 0; i < len(line); i++ {
		a := line[i]
		if isQuoted {
			if a == '"' {
				isQuoted = false
			} else {
				args[len(args)-1] = append(args[len(args)-1], a)
			}
			continue
		}
		switch a {
		case '"':
			isQuoted = true
			isText = true
			if isSpace {
				args = append(args, []byte{})
			}
			isSpace = false
		case ' ', '\t', '\n', '\r':
			isText = false
			isSpace = true
		default:
			isText = true
			if isSpace {
				args = append(args, []byte{})
			}
			args[len(args)-1] = append(args[len(args)-1], a)
			isSpace = false
		}
	}
	_ = isText
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = string(a)
	}
	return out
}

// getopt is GNU getopt's scanning for "hvpfmncs:Sd:e:t:l:o:Ni:L:" with
// opterr = 0, written as its optind/nextchar state machine; the argument
// of an option at the end of its word is the next word in the original
// order, as after GNU's permutation. hdc's early returns (-h, -v, bad
// values) are not modelled: every option is listed.
func (m *hdcModel) getopt() {
	const optstring = "hvpfmncs:Sd:e:t:l:o:Ni:L:"
	argv := m.words
	optind, nextchar := 1, ""
	for {
		if nextchar == "" {
			for optind < len(argv) && (len(argv[optind]) < 2 || argv[optind][0] != '-') {
				optind++ // a non-option: permuted to the end
			}
			if optind >= len(argv) || argv[optind] == "--" {
				return
			}
			nextchar = argv[optind][1:]
			optind++
		}
		c := nextchar[0]
		nextchar = nextchar[1:]
		temp := strings.IndexByte(optstring, c)
		if temp < 0 || c == ':' {
			m.opts = append(m.opts, "-"+string(c)) // '?': hdc ignores it
			continue
		}
		if temp+1 < len(optstring) && optstring[temp+1] == ':' {
			var optarg string
			switch {
			case nextchar != "":
				optarg, nextchar = nextchar, ""
			case optind < len(argv):
				optarg = argv[optind]
				optind++
			default:
				continue // missing argument: '?', ignored
			}
			m.opts = append(m.opts, "-"+string(c)+" "+optarg)
			if c == 't' {
				m.key = optarg
			}
			continue
		}
		m.opts = append(m.opts, "-"+string(c))
	}
}

// dispatch is what RunClientMode, ExecuteCommand and the server's
// String2FormatCommand do with the command, in their order.
func (m *hdcModel) dispatch() string {
	in := m.command
	if len(in) == 0 {
		return "none"
	}
	if strncmp(in, "keygen", 6) || strncmp(in, "killall-sub", 11) || strncmp(in, "kill", 4) {
		// DoCtrlServiceWork
		switch {
		case strncmp(in, "start", 5):
			return "start"
		case strncmp(in, "killall-sub", 11):
			return "killall-sub"
		case strncmp(in, "kill", 4):
			return "kill"
		case strncmp(in, "keygen", 6) && strings.Contains(in, " "):
			return "keygen"
		}
		return "ctrl-unknown"
	}
	if strncmp(in, "start", 5) {
		if strings.Contains(in, " -r") {
			return "start-restart"
		}
		return "start"
	}
	if strncmp(in, "hilog", 5) {
		// IsCaptureCommand
		index := len("hilog")
		for index < len(in) {
			if in[index] == ' ' {
				index++
				continue
			}
			if strncmp(in[index:], "parse", 5) {
				return "hilog-parse"
			}
			break
		}
	}
	has := func(p string) bool { return strings.HasPrefix(in, p) }
	switch {
	case has("help"):
		return "CMD_KERNEL_HELP"
	case in == "version":
		return "CMD_KERNEL_HELP"
	case in == "discover":
		return "CMD_KERNEL_TARGET_DISCOVER"
	case has("list targets"):
		return "CMD_KERNEL_TARGET_LIST"
	case has("start"):
		return "CMD_SERVICE_START"
	case has("checkserver"):
		return "CMD_CHECK_SERVER"
	case has("checkdevice"):
		return "CMD_CHECK_DEVICE"
	case has("wait"):
		return "CMD_WAIT_FOR"
	case in == "any":
		return "CMD_KERNEL_TARGET_ANY"
	case in == "reconnect" || has("reconnect "):
		return "CMD_KERNEL_TARGET_RECONNECT"
	case has("tconn"):
		return "CMD_KERNEL_TARGET_CONNECT"
	case has("shell -"):
		return "CMD_SHELL_EX"
	case has("shell "):
		return "CMD_UNITY_EXECUTE"
	case in == "shell":
		return "CMD_SHELL_INIT"
	case has("file recv"):
		// CMD_FILE_INIT too, but the host is the side that writes.
		return "CMD_FILE_INIT-recv"
	case has("file send"):
		return "CMD_FILE_INIT"
	case has("fport ") || has("rport "):
		if has("fport") && in[6:] == "ls" {
			return "CMD_FORWARD_LIST"
		}
		if has("fport") && strncmp(in[6:], "rm", 2) {
			return "CMD_FORWARD_REMOVE"
		}
		return "CMD_FORWARD_INIT"
	case has("install"):
		return "CMD_APP_INIT"
	case has("uninstall"):
		return "CMD_APP_UNINSTALL"
	case in == "target mount":
		return "CMD_UNITY_REMOUNT"
	case in == "jpid":
		return "CMD_JDWP_LIST"
	case has("track-jpid"):
		return "CMD_JDWP_TRACK"
	case has("target boot"):
		return "CMD_UNITY_REBOOT"
	case has("tmode"):
		return "CMD_UNITY_RUNMODE"
	case has("hilog"):
		return "CMD_UNITY_HILOG"
	case has("smode"):
		return "CMD_UNITY_ROOTRUN"
	case has("sideload"):
		return "CMD_APP_SIDELOAD"
	case has("bugreport"):
		// server_for_client.cpp: "bugreport " and a path runs on the
		// host, which opens the path (host_unity.cpp InitLocalLog).
		if has("bugreport ") && len(in) > len("bugreport ") {
			return "CMD_UNITY_BUGREPORT_INIT-local"
		}
		return "CMD_UNITY_BUGREPORT_INIT"
	case has("alive"):
		return "CMD_KERNEL_ENABLE_KEEPALIVE"
	}
	for _, p := range []string{"update ", "flash ", "erase ", "format "} {
		if has(p) && len(in) > len(p) {
			return "CMD_FLASHD"
		}
	}
	if has("spawn-sub") {
		return "CMD_SPAWN_SUB"
	}
	return "unknown"
}

// modelHarmful are the actions that change a device, the server or the
// host, or read a file of the host onto the device (CMD_FILE_INIT: file
// send, read back by hdc shell), by hdc's behaviour (see docs/HDC.md).
var modelHarmful = map[string]bool{
	"kill": true, "killall-sub": true, "keygen": true, "start-restart": true,
	"CMD_KERNEL_TARGET_RECONNECT": true, "CMD_KERNEL_TARGET_CONNECT": true, "CMD_FORWARD_REMOVE": true,
	"CMD_FORWARD_INIT": true, "CMD_APP_INIT": true, "CMD_APP_UNINSTALL": true, "CMD_UNITY_REMOUNT": true,
	"CMD_UNITY_REBOOT": true, "CMD_UNITY_RUNMODE": true, "CMD_UNITY_ROOTRUN": true, "CMD_APP_SIDELOAD": true,
	"CMD_FLASHD": true, "CMD_SPAWN_SUB": true, "CMD_FILE_INIT-recv": true, "CMD_UNITY_BUGREPORT_INIT-local": true,
	"CMD_FILE_INIT": true,
}

var modelLoopback = regexp.MustCompile(`^((127\.0\.0\.1|::1|::ffff:127\.0\.0\.1):)?[0-9]{1,5}$`)

// riskyOption reports a global option that changes how hdc's server runs.
func modelRiskyOption(o string) bool {
	switch o[1] {
	case 'm', 'N', 'e', 'n', 'c', 'S', 'd', 'o', 'i', 'L':
		return true
	case 's':
		return !modelLoopback.MatchString(o[3:])
	}
	return false
}
