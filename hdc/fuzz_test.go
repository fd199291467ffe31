package hdc

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/winbridge/winbridge/internal/termtext"
)

// FuzzParseArgv compares ParseArgv with hdcModel, the second model of
// hdc's client (model_test.go), on argument lists given as one string
// with NUL between the elements (NUL cannot be in an argument). The seeds
// in testdata/fuzz/FuzzParseArgv hold the argument lists that once
// passed the guard.
func FuzzParseArgv(f *testing.F) {
	f.Add("-t\x00install\x00x.hap")
	f.Fuzz(func(t *testing.T, s string) {
		argv := append([]string{"hdc"}, strings.Split(s, "\x00")...)
		c := ParseArgv(argv)
		m := runModel(argv)
		if c.Refused != (m.action == "hilog-parse") {
			t.Fatalf("%q: refused %v (%s), model action %q", argv, c.Refused, c.Why, m.action)
		}
		if c.Line != m.command || (c.Verb == "") != (m.command == "") {
			t.Fatalf("%q: verb %q line %q, model command %q", argv, c.Verb, c.Line, m.command)
		}
		if c.Verb != "" && !strings.HasPrefix(c.Line, c.Verb) {
			t.Fatalf("%q: line %q does not start with verb %q", argv, c.Line, c.Verb)
		}
		if got := c.Options(); !slices.Equal(got, m.opts) || c.ConnectKey != m.key {
			t.Fatalf("%q: options %q key %q, model %q key %q (words %q)", argv, got, c.ConnectKey, m.opts, m.key, m.words)
		}
		risky := slices.ContainsFunc(m.opts, modelRiskyOption)
		harmful := modelHarmful[m.action] || risky
		if harmful && !c.Destructive && !c.Refused {
			t.Fatalf("%q: model action %q options %q, but not destructive", argv, m.action, m.opts)
		}
		// Stricter than hdc only where hdc would reject the line anyway.
		if c.Destructive && !harmful && m.action != "unknown" {
			t.Fatalf("%q: destructive (%s), but the model's action %q is harmless", argv, c.Why, m.action)
		}
	})
}

// FuzzConnectKey checks that a key CheckConnectKey accepts reaches hdc as
// -t's value and nothing else, whatever follows it.
func FuzzConnectKey(f *testing.F) {
	f.Add("FMR0223C13000649", "ls")
	f.Fuzz(func(t *testing.T, key, cmd string) {
		if CheckConnectKey(key) != nil {
			return
		}
		for _, verb := range [][]string{{"shell"}, {"file", "send"}, {"install"}, {"uninstall"}, {"list", "targets"}} {
			argv := append(append([]string{"hdc", "-t", key}, verb...), cmd)
			m := runModel(argv)
			want := strings.Join(verb, " ")
			if m.key != key || !slices.Equal(m.opts, []string{"-t " + key}) || !strings.HasPrefix(m.command, want+" ") {
				t.Fatalf("key %q: hdc reads %q as options %q, command %q", key, argv, m.opts, m.command)
			}
		}
	})
}

// FuzzLocalPaths: with a Windows hdc.exe, hdc_run never lets hdc open a
// network share (other than WSL's), a device path or a DOS device name for a command that
// opens a local file, whatever the arguments. The model reads the command
// line as hdc does (runModel, then Base::SplitCommandToArgs), and takes
// every word as a path hdc might open, joined as hdc.exe joins a path it
// deems relative (base.cpp IsAbsolutePath: neither ":\" at 1 nor a
// leading "\\") to its own working directory or to any -cwd value; and,
// for keygen and bugreport, the rest of the line as it is. Seeds in
// testdata/fuzz/FuzzLocalPaths hold the bypasses found so far.
func FuzzLocalPaths(f *testing.F) {
	f.Add("file\x00send\x00\"\\\\h\\s\\x\"\x00/data/x")
	f.Fuzz(func(t *testing.T, s string) {
		argv := append([]string{"hdc.exe"}, strings.Split(s, "\x00")...)
		c := ParseArgv(argv)
		if c.Refused || !slices.Contains(localPathVerbs, c.Verb) {
			return
		}
		m := runModel(argv)
		if p := modelOpensShare(m.command, c.Verb); p != "" && localPathRisk(c) == "" {
			t.Fatalf("%q: hdc.exe may open %q, but hdc_run would run it", argv, p)
		}
	})
}

// modelDOSDevice matches a path whose last component Windows (before
// Windows 11, in any directory) opens as a DOS device: the name in any
// case, then spaces, then anything after a dot or colon.
var modelDOSDevice = regexp.MustCompile(`(?i)(^|[\\/])(con|prn|aux|nul|conin\$|conout\$|com[0-9¹²³]|lpt[0-9¹²³]) *([.:][^\\/]*)?$`)

// modelOpensShare returns a network share or device path that hdc.exe may
// open for the command line cmd of verb, or "".
func modelOpensShare(cmd, verb string) string {
	words := modelSplitCommandToArgs(cmd)
	cwds := []string{`C:\srv\`} // AppendCwdWhenTransfer: hdc's own, with a separator
	for i, w := range words {
		if w == "-cwd" && i+1 < len(words) {
			cwds = append(cwds, words[i+1])
		}
	}
	candidates := []string{strings.TrimPrefix(cmd, verb+" ")}
	for _, w := range words {
		if strings.Index(w, `:\`) == 1 || strings.HasPrefix(w, `\\`) {
			candidates = append(candidates, w)
			continue
		}
		for _, d := range cwds {
			candidates = append(candidates, d+w)
		}
	}
	for _, p := range candidates {
		if modelShareOrDevice(p) {
			return p
		}
	}
	return ""
}

// modelShareOrDevice reports a path Windows opens on another host or past
// the file system: two leading separators of either kind, then a host
// other than WSL's ("." and "?" being device paths), or \??\, or a last
// component that names a DOS device (modelDOSDevice).
func modelShareOrDevice(p string) bool {
	if strings.HasPrefix(p, `\??\`) || modelDOSDevice.MatchString(p) {
		return true
	}
	sep := func(c byte) bool { return c == '\\' || c == '/' }
	if len(p) < 2 || !sep(p[0]) || !sep(p[1]) {
		return false
	}
	host := p[2:]
	if i := strings.IndexAny(host, `\/`); i >= 0 {
		host = host[:i]
	}
	// ASCII case only, as Windows compares: strings.EqualFold would take
	// U+017F (long s) for "s".
	h := strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, host)
	return h != "wsl.localhost" && h != "wsl$"
}

// FuzzQuoteAll: quoteAll spells an argv element that a shell would split
// or that holds a rune a terminal acts on (termtext.Escape changes it) in
// Go syntax, which reads back as the element, and leaves the others as
// they are. Seeds in testdata/fuzz/FuzzQuoteAll hold escape sequences and
// bidi overrides.
func FuzzQuoteAll(f *testing.F) {
	f.Add("\x1b]0;owned\x07")
	f.Fuzz(func(t *testing.T, s string) {
		v := termtext.Escape(s)
		if !utf8.ValidString(s) {
			return
		}
		q := quoteAll([]string{s})[0]
		if q == s {
			if v != s {
				t.Fatalf("quoteAll(%q) left it as it is, but termtext.Escape changes it", s)
			}
			return
		}
		if u, err := strconv.Unquote(q); err != nil || u != s {
			t.Fatalf("quoteAll(%q) = %s, which reads back as %q (%v)", s, q, u, err)
		}
	})
}

// FuzzCutSentinel: whatever a device command prints, with or without a
// final line break, the wrapper's blank line and sentinel are cut and the
// command's bytes come back as they were, also when every LF became
// CRLF on the way. Seeds in testdata/fuzz/FuzzCutSentinel hold CR-only
// lines.
func FuzzCutSentinel(f *testing.F) {
	f.Add("50%\r", uint8(3))
	f.Fuzz(func(t *testing.T, out string, status uint8) {
		const nonce = "0123456789ab"
		if strings.Contains(out, sentinelPrefix) {
			return // a forged sentinel: not the property checked here
		}
		wire := out + "\n" + sentinelPrefix + nonce + "=" + strconv.Itoa(int(status)) + "\n"
		for _, crlf := range []bool{false, true} {
			got, want := wire, out
			if crlf {
				got, want = strings.ReplaceAll(wire, "\n", "\r\n"), strings.ReplaceAll(out, "\n", "\r\n")
			}
			clean, st, ok := CutSentinel([]byte(got), nonce)
			if !ok || st != int(status) || string(clean) != want {
				t.Fatalf("CutSentinel(%q) = %q, %d, %v; want %q, %d", got, clean, st, ok, want, status)
			}
		}
	})
}
