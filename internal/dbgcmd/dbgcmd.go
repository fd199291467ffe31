package dbgcmd

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
)

// Class is a kind of refused command.
type Class int

// The classes of Policy.
const (
	// Malformed: not one non-empty ASCII line without control characters.
	// Refused under every policy.
	Malformed Class = iota
	// SessionEnd: the command ends, detaches, restarts or unloads the
	// session.
	SessionEnd
	// Host: the command reaches past the debugging session to the host
	// or the network.
	Host
	// Indirect: the command builds or hides another command at run time.
	Indirect
	// Reserved: the command calls the extension that serves the model
	// (Policy.Reserved). Refused under every policy.
	Reserved
	// Interactive: the command reads its input from the lines that
	// follow it (a (assemble), e* with an address but no values), so it
	// would take the server's own next line, the end marker its output is
	// read up to, as input, and the call would never end. Refused under
	// every policy.
	Interactive
)

func (c Class) String() string {
	switch c {
	case Malformed:
		return "malformed"
	case SessionEnd:
		return "session-ending"
	case Host:
		return "host"
	case Indirect:
		return "indirect"
	case Reserved:
		return "reserved"
	case Interactive:
		return "interactive"
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

// Policy says which classes of commands Check lets through. The zero
// Policy refuses every class.
type Policy struct {
	// AllowSessionEnd lets SessionEnd commands through.
	AllowSessionEnd bool
	// AllowHostCommands lets Host commands through.
	AllowHostCommands bool
	// SessionEndOption and HostOption name the settings that set
	// AllowSessionEnd and AllowHostCommands, for refusal messages, e.g.
	// "-allow-host-commands (WINDBG_ALLOW_HOST_COMMANDS=1)".
	SessionEndOption, HostOption string
	// Reserved, if not empty, is the name of an extension command that is
	// refused under every policy (as !name and !module.name), e.g. "mcp"
	// for the extension that serves the model: run by it, it would wait
	// for itself.
	Reserved string
	// ExtensionModules names extension modules (without ".dll", any
	// case) that !module.name may call besides the debugger's own (ext,
	// exts, uext, kext, ntsdexts, kdexts, dbghelp, wow64exts, sos,
	// wmitrace, wdfkd, rcdrkd). The debugger loads a module that is not
	// loaded yet from its extension path, which holds every PATH
	// directory, so an unknown module is a Host command. ExtensionOption
	// names the setting, for refusal messages.
	ExtensionModules []string
	ExtensionOption  string
}

// moduleAllowed reports whether !module.name may load module: one of the
// debugger's own or one p names. A module holding a '.' (ext.dll, ext.x)
// is no module name; which of its dots the debugger splits at is not
// documented.
func (p Policy) moduleAllowed(module string) bool {
	if ownModules[module] {
		return true
	}
	for _, m := range p.ExtensionModules {
		if strings.ToLower(m) == module && !strings.Contains(module, ".") {
			return true
		}
	}
	return false
}

// extensionOption says who names further modules, for messages.
func (p Policy) extensionOption() string {
	if p.ExtensionOption == "" {
		return "the server's settings name"
	}
	return "named in " + p.ExtensionOption
}

// CheckModuleName returns an error unless name may stand in
// Policy.ExtensionModules: a module name as !module.name spells it,
// letters, digits, '_' and '-', without a path or ".dll" (a path would
// name the file the debugger loads, and the check compares names).
func CheckModuleName(name string) error {
	if name == "" {
		return fmt.Errorf("an empty extension module name")
	}
	for _, c := range []byte(name) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return fmt.Errorf("extension module %q: want a module name as !module.command spells it (letters, digits, '_', '-'), without a path or .dll", name)
		}
	}
	return nil
}

// ownModuleList names the debugger's own modules, for messages.
func ownModuleList() string {
	names := make([]string, 0, len(ownModules))
	for m := range ownModules {
		names = append(names, m)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Error is a refusal: nothing of the command ran.
type Error struct {
	// Class is the class of the refused command.
	Class Class
	// Word is the command or construct that was refused, as the check
	// saw it (lower case); empty for a malformed line.
	Word string
	// Reason is the explanation for the model, naming the class and the
	// option that would allow it.
	Reason string
}

func (e *Error) Error() string { return "invalid command: " + e.Reason }

// MaxLine is the longest command Check lets through, in bytes. cdb
// documents no length for its input line; one longer than its buffer
// would be cut into two commands where this check saw one (the second
// starting mid-word, where a name the check read as a member or an
// argument becomes a verb). No command a model needs comes near it.
const MaxLine = 4096

// Check returns nil if the policy lets command run, or an *Error.
func (p Policy) Check(command string) error {
	if err := checkLine(command); err != nil {
		return err
	}
	if len(command) > MaxLine {
		return &Error{Reason: fmt.Sprintf("the command has %d bytes; at most %d are read as one line", len(command), MaxLine)}
	}
	return p.check(command)
}

// check is Check's judgment of a well-formed line of any length.
func (p Policy) check(command string) error {
	s := strings.ToLower(command)
	hits := scan(s)
	if p.Reserved != "" {
		r := strings.ToLower(p.Reserved)
		for _, b := range hits.bangs {
			if b.name == r {
				return &Error{Class: Reserved, Word: "!" + b.full,
					Reason: fmt.Sprintf("!%s controls the extension that runs this command; run it in the debugger yourself", b.full)}
			}
		}
	}
	if p.AllowSessionEnd && p.AllowHostCommands {
		for _, h := range hits.all() {
			if h.class == Interactive {
				return interactiveError(h)
			}
		}
		return nil
	}
	if !p.AllowHostCommands {
		// Only the first refused module is reported: every one is a Host
		// hit, and a message per '!' of a long line would cost quadratic
		// time.
		for _, b := range hits.bangs {
			if !b.start {
				continue
			}
			// A module given by path is refused on its own (scanLine).
			if strings.Contains(b.full, ".") && !strings.ContainsAny(b.module, `\/:`) && !p.moduleAllowed(b.module) {
				hits.add(b.pos, rule{Host, fmt.Sprintf(
					"calls extension module %q, which the debugger loads (LoadLibrary) from its extension path, every PATH directory among them, if it is not loaded yet; only its own modules (%s) and those %s pass",
					b.module, ownModuleList(), p.extensionOption())}, "!"+b.full)
				break
			}
			if b.wide != "" && !p.moduleAllowed(b.wide) {
				hits.add(b.pos, rule{Host, fmt.Sprintf(
					"may call extension module %q: where the debugger ends a module name is not documented, and it loads a module that is not loaded yet from its extension path; only its own modules (%s) and those %s pass",
					b.wide, ownModuleList(), p.extensionOption())}, "!"+b.wide)
				break
			}
		}
	}
	for _, h := range hits.all() {
		switch h.class {
		case Interactive:
			return interactiveError(h)
		case Indirect:
			return &Error{Class: Indirect, Word: h.word, Reason: fmt.Sprintf(
				"%s %s; it builds or hides a command at run time, which could carry a refused command, so it is refused unless %s",
				h.word, h.why, p.both())}
		case SessionEnd:
			if !p.AllowSessionEnd {
				return &Error{Class: SessionEnd, Word: h.word, Reason: fmt.Sprintf(
					"%s %s; session-ending commands are refused unless %s",
					h.word, h.why, option(p.SessionEndOption, "the server's settings allow them"))}
			}
		case Host:
			if !p.AllowHostCommands {
				return &Error{Class: Host, Word: h.word, Reason: fmt.Sprintf(
					"%s %s; it reaches past the debugging session to the host or network, which is refused unless %s",
					h.word, h.why, option(p.HostOption, "the server's settings allow them"))}
			}
		}
	}
	return nil
}

// interactiveError is the refusal of an Interactive hit.
func interactiveError(h hit) *Error {
	return &Error{Class: Interactive, Word: h.word, Reason: fmt.Sprintf(
		"%s %s, and would take this server's next line for it: the call would never end; give the values on the same line (eb 0x1000 90 90), or use the debugger yourself for interactive input",
		h.word, h.why)}
}

// both names the settings that together allow indirect constructs.
func (p Policy) both() string {
	var opts []string
	if !p.AllowSessionEnd {
		opts = append(opts, option(p.SessionEndOption, "the server's settings allow session-ending commands"))
	}
	if !p.AllowHostCommands {
		opts = append(opts, option(p.HostOption, "the server's settings allow host commands"))
	}
	return strings.Join(opts, " and ")
}

func option(name, fallback string) string {
	if name == "" {
		return fallback
	}
	return name + " is set"
}

// checkLine refuses what is not one non-empty ASCII line without control
// characters (tabs aside). An empty line is not harmless: cdb repeats the
// last command. A line break would smuggle in a second command, and CTRL+B
// ends a cdb client. The engine reads commands in the ANSI code page:
// converted to it, Windows' best-fit mapping would turn characters such as
// a fullwidth semicolon into ';' after this check; passed unconverted, a
// double-byte code page would read UTF-8 bytes as lead bytes and swallow
// the ASCII character after them. Either way the engine would not run the
// line that was checked.
func checkLine(command string) error {
	if strings.TrimSpace(command) == "" {
		return &Error{Reason: "the command is empty; the debugger would repeat the last command"}
	}
	for i, r := range command {
		switch {
		case r == '\n' || r == '\r':
			return &Error{Reason: fmt.Sprintf("the command must be one line (line break at byte %d); send one command per call, or separate commands with ';'", i)}
		case r != '\t' && unicode.IsControl(r):
			return &Error{Reason: fmt.Sprintf("control character %U at byte %d", r, i)}
		case r > unicode.MaxASCII:
			return &Error{Reason: fmt.Sprintf("non-ASCII character %U at byte %d: the debugger reads commands in the ANSI code page, where it would not stay what was checked", r, i)}
		}
	}
	return nil
}

// Note describes for a model, in a tool description, what p refuses.
func (p Policy) Note() string {
	var refused []string
	if !p.AllowSessionEnd {
		refused = append(refused, "commands that end the session (q, qd, .kill, .detach, .restart)")
	}
	if !p.AllowHostCommands {
		refused = append(refused, "commands that reach this machine or the network (.shell, .create, .load, .logopen, .writemem, .dump, .sympath, .srcpath, source listings (ls, lsa, l+s), .server, network paths, !module.command for a module other than the debugger's own: "+ownModuleList()+")")
	}
	var note string
	if len(refused) == 0 {
		note = "Every debugger command is allowed."
	} else {
		note = "Refused before they run: " + strings.Join(refused, "; ") +
			"; and, since they could hide those, aliases (as, aS, ${...}, $u0), .foreach, script files ($$<), JavaScript (.scriptload), DML links and dx's Debugger root (use Debugger.Sessions, @$cursession, @$curprocess). The user can allow each group when starting the server."
	}
	note += " Commands that read input from the following lines (a, and e* without values) are always refused: give the values on the same line."
	if p.Reserved != "" {
		note += " !" + p.Reserved + " controls this server and is always refused."
	}
	return note
}
