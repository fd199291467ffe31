package dbgcmd

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// refusedTokens are commands of every refused class, as a model would
// type them.
func refusedTokens() []string {
	var toks []string
	for name := range dotCommands {
		toks = append(toks, "."+name)
	}
	for name := range bangCommands {
		toks = append(toks, "!"+name)
	}
	toks = append(toks, "q", "qq", "qd", "as", "lsf", "!for_each_module", "!pykd.py", "${x}", "$u0", "r $.u0=x",
		"$$<f", "$$>a<f", `\\h\s`, "//h/s", "dx Debugger.Utility", "dx @$scripts", "dx @$debuggerRootNamespace",
		`.printf /d "%clink"`, `.printf/d "%ma"`, `.printf -d "\x25y"`, "!zz.x", "!ext.dll.x",
		"lsa", "ls", "l+s", "l +t", "!ext,zz.x", "!ext(zz).x", "!!calc")
	slices.Sort(toks) // map order is random; sorted, a seed means the same token every run
	return toks
}

// glues are what may stand between any text and a command: separators,
// and thread and process prefixes glued to the command.
var glues = []string{";", "{", "\"", "'", "; ", "{ ", ";~*e", ";~0e", ";~~[0x1d8]e", ";~[@$t0]e", ";|0e", "; ~*e ", ";~0 e", ";~#e", ";~.e", ";~.", ";|.", ";~0n12e", ";~0n1 e",
	// Bodies and comments: a comment hides nothing from a coarse check,
	// and a body or a deferred command string runs what it holds.
	"$$ ", "* ", ".block{", "j 1 '", ".if (1) {", "sxe -c \"", "bp x \"k;", ";.printf /d \"x\";",
	// A number glued to the command: a thread or process without a verb,
	// and j's condition.
	";~0", ";|0", ";~0xa", "; j1"}

// A reference tokenizer, written independently of scan with regular
// expressions: what it finds in an accepted line must not be refused.
var (
	refDot    = regexp.MustCompile(`\.[ \t]*([a-z0-9_]+)`)
	refWord   = regexp.MustCompile(`[a-z0-9_]+`)
	refBlanks = strings.NewReplacer(" ", "", "\t", "")
	// An extension command where nothing glues its '!' to a symbol's
	// module, and the modules of the Debugging Tools it may name.
	refBang       = regexp.MustCompile("(?:^|[ \t;{}()\"'])![ \t]*([^ \t;{}()\"'`,=*?!]+)")
	refOwnModules = map[string]bool{"ext": true, "exts": true, "uext": true, "kext": true, "ntsdexts": true, "kdexts": true,
		"dbghelp": true, "wow64exts": true, "sos": true, "wmitrace": true, "wdfkd": true, "rcdrkd": true}
)

// refRefused reports the first refused construct the reference finds in
// s (lower case), or "".
func refRefused(s string) string {
	for _, m := range refDot.FindAllStringSubmatch(s, -1) {
		if _, ok := dotCommands[m[1]]; ok {
			return "." + m[1]
		}
	}
	t := refBlanks.Replace(s)
	for _, sub := range []string{"${", "$<", "$>", "$.u", `\\`, "//", `\/`, `/\`} {
		if strings.Contains(t, sub) && (sub[0] == '$' || strings.Contains(s, sub)) {
			return sub
		}
	}
	if regexp.MustCompile(`\$u[0-9]`).MatchString(t) {
		return "$u"
	}
	for _, m := range refBang.FindAllStringSubmatch(s, -1) {
		if d := strings.LastIndexByte(m[1], '.'); d >= 0 && !refOwnModules[m[1][:d]] {
			return "!" + m[1]
		}
	}
	for _, loc := range refWord.FindAllStringIndex(s, -1) {
		w := s[loc[0]:loc[1]]
		before := strings.TrimRight(s[:loc[0]], " \t*?")
		after := strings.TrimRight(s[:loc[0]], " \t")
		if strings.HasSuffix(before, "!") || strings.HasSuffix(after, ".") || strings.HasSuffix(after, "->") {
			continue
		}
		switch w {
		case "q", "qq", "qd", "as", "lsf", "ls", "lsa":
			return w
		}
	}
	return ""
}

// asciiCase shifts the ASCII letters from lo to hi by d. The debugger
// folds the case of ASCII only; strings.ToLower would also turn a
// non-ASCII line into an ASCII one (U+0130 into "i", U+212A into "k"),
// whose verdict rightly differs.
func asciiCase(s string, lo, hi byte, d int) string {
	b := []byte(s)
	for i, c := range b {
		if lo <= c && c <= hi {
			b[i] = byte(int(c) + d)
		}
	}
	return string(b)
}

// FuzzCheck checks properties of Policy.Check on any line:
//   - a refused token after any text and glue, with any text after it, is
//     refused, under the zero Policy and under a policy that allows only
//     the other class;
//   - the case of ASCII letters does not matter;
//   - an accepted line holds nothing the reference tokenizer refuses;
//   - with both classes allowed, only malformed lines and the reserved
//     command are refused.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"k", "~*e", "bp x \"", ".block {", "j 1 ", "k;", "|1e", "(", "'", "x app!", "dx @$curprocess", "$$ c"} {
		f.Add(s, "", uint8(0), uint8(0))
		f.Add(s, "calc", uint8(7), uint8(3))
	}
	toks := refusedTokens()
	f.Fuzz(func(t *testing.T, prefix, suffix string, which, glue uint8) {
		zero := Policy{Reserved: "mcp"}
		tok := toks[int(which)%len(toks)]
		if which&0x80 != 0 {
			tok = strings.ToUpper(tok)
		}
		cmd := prefix + glues[int(glue)%len(glues)] + tok + " " + suffix
		if zero.Check(cmd) == nil {
			t.Fatalf("%q accepted", cmd)
		}
		for _, s := range []string{prefix + suffix, prefix, cmd} {
			err := zero.Check(s)
			if (err == nil) != (zero.Check(asciiCase(s, 'a', 'z', 'A'-'a')) == nil) || (err == nil) != (zero.Check(asciiCase(s, 'A', 'Z', 'a'-'A')) == nil) {
				t.Fatalf("%q: case changes the verdict", s)
			}
			if err == nil {
				if w := refRefused(strings.ToLower(s)); w != "" {
					t.Fatalf("%q accepted; the reference finds %q", s, w)
				}
			}
			all := Policy{AllowSessionEnd: true, AllowHostCommands: true, Reserved: "mcp"}
			if err := all.Check(s); err != nil {
				if e := err.(*Error); e.Class != Malformed && e.Class != Reserved && e.Class != Interactive {
					t.Fatalf("%q refused with everything allowed: %v", s, err)
				}
			}
		}
	})
}

// FuzzBangModule checks the extension-module rule on !module.name after
// any text and glue: a module that is not the debugger's own is refused
// as a Host command (or as an Indirect construct the text holds); named, the line gets the verdict it gets with the debugger's
// own ext in its place, under the zero Policy and with session end
// allowed; and allowing host commands lets it through whatever it names.
func FuzzBangModule(f *testing.F) {
	f.Add("", "evil", "cmd x", uint8(0))
	f.Add("k", "SOSEX", "bpsc", uint8(3))
	f.Add("bp app!main", "mex", "us", uint8(4))
	f.Add("", "ext", "heap -s", uint8(1))
	f.Add("", "ext.dll", "heap", uint8(0))
	f.Fuzz(func(t *testing.T, prefix, module, rest string, glue uint8) {
		g := bangGlues[int(glue)%len(bangGlues)]
		line := prefix + g + "!" + module + "." + rest
		if checkLine(line) != nil || len(line) > MaxLine {
			return
		}
		// A line that reads input from the lines after it (a prefix
		// "a;") is refused for that under every policy, whatever module
		// it names: judged apart (TestInteractive).
		var ie *Error
		if err := (Policy{AllowHostCommands: true, AllowSessionEnd: true}).Check(line); errors.As(err, &ie) && ie.Class == Interactive {
			return
		}
		lower := strings.ToLower(module)
		plain := regexp.MustCompile(`^[a-z0-9_]{1,16}$`).MatchString(lower)
		base := Policy{AllowSessionEnd: true}
		// A blank or other end of the name makes !module an extension
		// command of its own, with the rest as its arguments.
		if !refOwnModules[lower] && !strings.ContainsAny(module, bangEnd) {
			var e *Error
			if err := base.Check(line); !errors.As(err, &e) || e.Class != Host && e.Class != Indirect {
				t.Fatalf("%q: %v, want a Host (or Indirect) refusal", line, err)
			}
		}
		if err := (Policy{AllowHostCommands: true, AllowSessionEnd: true}).Check(line); err != nil {
			t.Fatalf("%q refused with everything allowed: %v", line, err)
		}
		_, denied := bangModules[lower]
		_, word := dataModelWords[lower]
		if !plain || denied || word {
			return
		}
		named := prefix + g + "!ext." + rest
		for _, p := range []Policy{{}, base} {
			p.ExtensionModules = []string{module}
			// check: the judgment of the line, whatever its length
			// ("ext" may be longer than the module).
			if (p.check(line) == nil) != (p.check(named) == nil) {
				t.Fatalf("%q named in ExtensionModules under %+v: %v; with ext: %v", line, p, p.check(line), p.check(named))
			}
		}
	})
}

// bangGlues may stand before an extension command.
var bangGlues = []string{";", "; ", "{", ".block{", "\"", "'", "j 1 '", ";~*e", ";~0e", ";|0s", ";~0 e ", ";~.", "$$ ", "bp x \"k;", " "}
