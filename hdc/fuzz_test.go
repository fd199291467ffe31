package hdc

import (
	"slices"
	"strings"
	"testing"
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
