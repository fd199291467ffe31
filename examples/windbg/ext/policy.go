package main

import (
	"fmt"
	"strings"
	"unicode"
)

// CommandError says why a command was refused before anything ran.
type CommandError struct {
	Reason string
}

func (e *CommandError) Error() string { return "invalid command: " + e.Reason }

// sessionEnders are the commands that end, detach from, restart or
// unload the session, or re-enter this extension. Run from inside the
// engine call the worker is making, they would end the engine under it
// or make the extension wait for itself: .unload and !mcp stop wait for
// the worker, which is the caller.
var sessionEnders = map[string]string{
	"q":          "ends the debugging session",
	"qq":         "ends the debugging session",
	"qd":         "detaches and ends the session",
	".kill":      "ends the target process",
	".detach":    "detaches from the target",
	".abandon":   "abandons the target",
	".restart":   "restarts the target",
	".reboot":    "reboots the target",
	".crash":     "crashes the target",
	".unload":    "unloads an extension (this one would wait for itself)",
	".unloadall": "unloads every extension (this one would wait for itself)",
	".load":      "loads or reloads an extension",
	".endsrv":    "ends a debugging server",
	".endpsrv":   "ends a process server",
	".opendump":  "opens another target",
	".attach":    "attaches to another process",
}

// hostCommands reach past the debugging session to the machine or the
// network. They are refused unless Policy.AllowHostCommands.
var hostCommands = map[string]string{
	".shell":  "runs a program on this machine",
	".create": "starts a program on this machine",
	".server": "opens this session to remote debugging clients",
}

// Policy says which commands CheckCommand lets through besides ordinary
// debugger commands.
type Policy struct {
	// AllowSessionEnd lets session-ending commands (sessionEnders) run.
	AllowSessionEnd bool
	// AllowHostCommands lets .shell and .server run.
	AllowHostCommands bool
}

// CheckCommand accepts one non-empty ASCII line without control
// characters (tabs aside) and, unless p allows them, without a command
// that would end the session or reach the host (.shell, .server); this
// extension's own !mcp is refused either way. An empty line would repeat the last command in cdb; a newline
// would smuggle in another command.
//
// The session-ending check is lexical and deliberately coarse: the
// command is cut into words at blanks, ';', braces, parentheses, quotes
// and commas, thread and process prefixes (~*e, ~3e, |0s) are dropped,
// and a word equal to one of sessionEnders (any case) refuses the whole
// line, wherever it stands: in a breakpoint's command string ("bp x \"q\""),
// in a block (.block { q }), after j or .if. So does a script file
// ($$<, $$><, $$>a<), whose content cannot be checked, an alias
// expansion (${...}), whose value cannot be known here, and a call of
// this extension (!mcp, !ext.mcp). A word such as a variable named q is
// refused too; that is the price of not parsing the command language.
func CheckCommand(command string, p Policy) error {
	if strings.TrimSpace(command) == "" {
		return &CommandError{Reason: "the command is empty; the debugger would repeat the last command"}
	}
	for i, r := range command {
		switch {
		case r == '\n' || r == '\r':
			return &CommandError{Reason: fmt.Sprintf("the command must be one line (line break at byte %d); send one command per call, or separate commands with ';'", i)}
		case r != '\t' && unicode.IsControl(r):
			return &CommandError{Reason: fmt.Sprintf("control character %U at byte %d", r, i)}
		case r > unicode.MaxASCII:
			// The engine reads commands in the ANSI code page. Converted,
			// best-fit mapping would turn characters such as a fullwidth
			// semicolon into ';' after this check; unconverted, a DBCS
			// code page would read UTF-8 bytes as lead bytes and swallow
			// the ASCII character after them. Either way the engine would
			// not run the line that was checked.
			return &CommandError{Reason: fmt.Sprintf("non-ASCII character %U at byte %d: the debugger engine reads commands in the ANSI code page, where it would not stay what was checked", r, i)}
		}
	}
	lower := strings.ToLower(command)
	// Always refused: !mcp run by the worker would wait for the worker.
	for _, w := range words(lower) {
		if w == "!mcp" || strings.HasPrefix(w, "!") && strings.HasSuffix(w, ".mcp") {
			return &CommandError{Reason: w + " controls this extension; run it in the debugger yourself"}
		}
	}
	if p.AllowSessionEnd && p.AllowHostCommands {
		return nil
	}
	if strings.Contains(lower, "$$<") || strings.Contains(lower, "$$>") || strings.Contains(lower, "$><") || strings.Contains(lower, "$<") {
		return &CommandError{Reason: "script files ($$<, $$><, $$>a<) are refused: their commands cannot be checked"}
	}
	if strings.Contains(lower, "${") {
		return &CommandError{Reason: "alias expansion (${...}) is refused: the alias could hold a refused command"}
	}
	for _, w := range words(lower) {
		if why, ok := sessionEnders[w]; ok && !p.AllowSessionEnd {
			return &CommandError{Reason: fmt.Sprintf("%s %s; run from here it would end the session under the extension or deadlock it, so it is refused (type it in the debugger yourself)", w, why)}
		}
		if why, ok := hostCommands[w]; ok && !p.AllowHostCommands {
			return &CommandError{Reason: fmt.Sprintf("%s %s, beyond the debugging session, so it is refused (type it in the debugger yourself)", w, why)}
		}
	}
	return nil
}

// words cuts s at the separators of the command language and strips
// thread (~...e, ~...s) and process (|...e, |...s) prefixes from each
// word, so that ~*e q and ~0eq yield q.
func words(s string) []string {
	f := strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(";{}()\"'`,=", r)
	})
	var out []string
	for _, w := range f {
		for len(w) > 0 && (w[0] == '~' || w[0] == '|') {
			// The prefix is ~ or | then a thread or process spec (digits,
			// ., #, *, [expr]) and an optional e or s verb.
			i := 1
			for i < len(w) && strings.ContainsRune("0123456789.#*[]~|", rune(w[i])) {
				i++
			}
			if i < len(w) && (w[i] == 'e' || w[i] == 's') {
				i++
			}
			if i < len(w) && (w[i] == '~' || w[i] == '|') {
				w = w[i:]
				continue
			}
			if i == len(w) {
				out = append(out, w) // a bare prefix (~*e) is a word of its own
			}
			w = w[i:]
			break
		}
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}
