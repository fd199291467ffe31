package hdc

import "strings"

// This file models how hdc's host client reads its command line, from
// the source of openharmony/developtools_hdc (src/host/main.cpp,
// src/common/base.cpp, src/common/define.h). The guard decides on what
// hdc will do, so it must find the command exactly where hdc finds it:
//
//  1. SplitOptionAndCommand (main.cpp) walks argv from argv[0] and asks
//     IsRegisterCommand of each element, with the element after it, until
//     one is a registered command. It does this before any option is
//     parsed, so "-t install x" runs install: -t does not take the next
//     element as its value at this stage.
//  2. The elements before the command are joined with spaces, argv[0]
//     wrapped in double quotes and the others as they are, and split again
//     (Base::SplitCommandToArgs, base.cpp): spaces, tabs, CR and LF separate
//     words, double quotes group. An element "K -m -s 0.0.0.0:8710" becomes
//     four options.
//  3. getopt reads those words with "hvpfmncs:Sd:e:t:l:o:Ni:L:".
//  4. The command and the elements after it are joined with spaces into
//     one line, an element holding a space wrapped in double quotes. The
//     client and the server then look at that line by prefix: kill, start
//     (" -r" anywhere restarts the server), keygen, "hilog parse" (run on
//     the host through popen), and the server's String2FormatCommand
//     (src/host/translate.cpp).

// registeredCommands are hdc's registered commands in IsRegisterCommand's
// order (main.cpp; strings from define.h). The order matters: the search
// stops at the first entry that matches.
var registeredCommands = []string{
	"version", "help", "discover", "list targets", "checkserver", "checkdevice", "wait", "any", "tconn",
	"reconnect", "shell", "shell -", "file send", "file recv", "fport", "rport", "kill", "start", "keygen",
	"install", "uninstall", "target mount", "hilog", "smode", "bugreport", "tmode", "sideload", "target boot",
	"jpid", "track-jpid", "update", "flash", "erase", "format", "spawn-sub", "killall-sub",
}

// registeredCommand reports whether the element cmd, followed by next
// (hasNext false for the last element), starts a command, as
// IsRegisterCommand does: the pair "cmd next" equal to a registered
// command takes two elements; cmd equal to one, or starting with "wait",
// takes one. cmd may itself hold a space: "target boot" as one element is
// the command target boot.
func registeredCommand(cmd, next string, hasNext bool) (string, int) {
	if !hasNext {
		next = ""
	}
	pair := cmd + " " + next
	for _, v := range registeredCommands {
		if pair == v {
			return pair, 2
		}
		if cmd == v || strings.HasPrefix(cmd, "wait") {
			return cmd, 1
		}
	}
	return "", 0
}

// splitArgv splits argv (the program and its arguments) as
// SplitOptionAndCommand does: at is the index of the command's first
// element (-1 without a command), n the number of elements it takes,
// optionLine the elements before it joined as hdc joins them and line the
// command line. hdc then appends " remote -cwd <dir>" right after the
// command for file send, file recv, install and sideload
// (AppendCwdWhenTransfer); the line here leaves that out, as nothing the
// guard decides depends on it.
func splitArgv(argv []string) (at, n int, optionLine, line string) {
	at = -1
	var opt, cmd strings.Builder
	for i := 0; i < len(argv); i++ {
		if at < 0 {
			next, has := "", i+1 < len(argv)
			if has {
				next = argv[i+1]
			}
			if v, k := registeredCommand(argv[i], next, has); k > 0 {
				at, n = i, k
				cmd.WriteString(v)
				i += k - 1
				continue
			}
			if opt.Len() > 0 {
				opt.WriteByte(' ')
			}
			if i == 0 {
				opt.WriteString(`"` + argv[i] + `"`)
			} else {
				opt.WriteString(argv[i])
			}
			continue
		}
		cmd.WriteByte(' ')
		if strings.Contains(argv[i], " ") {
			cmd.WriteString(`"` + argv[i] + `"`)
		} else {
			cmd.WriteString(argv[i])
		}
	}
	return at, n, opt.String(), cmd.String()
}

// splitWords splits hdc's option line into words as
// Base::SplitCommandToArgs does: space, tab, CR and LF end a word outside
// double quotes; a double quote opens or closes quoting and is dropped; a
// quoted empty string is a word.
func splitWords(s string) []string {
	var words []string
	var cur []byte
	inWord, quoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '"':
			quoted = false
		case quoted:
			cur = append(cur, c)
		case c == '"':
			quoted, inWord = true, true
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			if inWord {
				words = append(words, string(cur))
				cur = cur[:0]
			}
			inWord = false
		default:
			cur = append(cur, c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, string(cur))
	}
	return words
}

// option is one global option as hdc's getopt reads it.
type option struct {
	flag  byte   // the option letter: 't' for -t
	value string // its argument, for the options that take one
}

func (o option) String() string {
	if strings.IndexByte(optionsWithValue, o.flag) >= 0 {
		return "-" + string(o.flag) + " " + o.value
	}
	return "-" + string(o.flag)
}

// optionsWithValue are the letters of hdc's getopt string
// "hvpfmncs:Sd:e:t:l:o:Ni:L:" that take an argument.
const optionsWithValue = "sdetloiL"

// getopt reads words (words[0] is the program) as hdc's getopt call does,
// and returns every option it would see, in order. It follows GNU getopt,
// which hdc gets from glibc on Linux and mingw-w64 on Windows: it skips
// words that are not options and keeps looking after them, stops at
// "--", reads clustered letters ("-pt KEY"), and takes an option's
// argument from the rest of its word or from the next word, whatever that
// is. macOS's getopt stops at the first word that is not an option, so it
// sees a subset. Letters hdc does not know are kept (hdc ignores them); an
// option missing its argument is left out (getopt reports it and hdc
// ignores it). hdc stops at -h, -v and at an invalid value; this list
// does not, so it holds everything hdc might act on.
func getopt(words []string) []option {
	var opts []option
	for i := 1; i < len(words); i++ {
		w := words[i]
		if w == "--" {
			break
		}
		if len(w) < 2 || w[0] != '-' {
			continue
		}
		for j := 1; j < len(w); j++ {
			c := w[j]
			if strings.IndexByte(optionsWithValue, c) < 0 {
				opts = append(opts, option{flag: c})
				continue
			}
			v := w[j+1:]
			if v == "" {
				if i+1 >= len(words) {
					break
				}
				i++
				v = words[i]
			}
			opts = append(opts, option{flag: c, value: v})
			break
		}
	}
	return opts
}

// hilogParse reports whether the command line runs hdc's host-side
// "hilog parse" (IsCaptureCommand, src/host/client.cpp): after "hilog",
// spaces, then "parse" as a prefix. hdc hands such a line to popen (a
// host shell) or CreateProcess.
func hilogParse(line string) bool {
	rest, ok := strings.CutPrefix(line, "hilog")
	if !ok {
		return false
	}
	return strings.HasPrefix(strings.TrimLeft(rest, " "), "parse")
}
