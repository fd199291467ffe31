package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParsePolicyFull(t *testing.T) {
	p := mustPolicy(t, `{
		"profile": "claude",
		"profiles": {"claude": {"allow": ["fs/*", "up"], "deny": ["*/delete*"], "target": "anthropic", "maxNameLength": 60, "riskPrefixes": false}},
		"tools": {"fs/read_file": {"name": "read", "title": "Read", "description": "d", "annotations": {"readOnlyHint": true},
			"hidden": false, "pathArgs": ["path", "paths[]", "opts.cwd"], "approval": "never",
			"budgets": {"callsPerSession": 5, "concurrentPerTool": 2, "timeoutMs": 1500}, "maxArgumentBytes": 100}},
		"roots": ["/home/u", "C:\\work"],
		"approval": {"default": "always", "rules": [{"tool": "fs/*", "require": "never"}], "withoutElicitation": "allow"},
		"budgets": {"callsPerSession": 10},
		"limits": {"maxArgumentBytes": 1, "maxBlockBytes": 2, "maxResultBytes": 3, "maxUpstreamMessageBytes": 4, "maxSchemaBytes": 5},
		"risk": {"destructive": "D ", "openWorld": "O ", "writes": "W "}
	}`)
	r := p.Tools["fs/read_file"]
	if p.Profile != "claude" || p.Profiles["claude"].MaxNameLength != 60 || !p.Profiles["claude"].NoRiskPrefixes ||
		r.Name != "read" || len(r.PathArgs) != 3 || r.Budgets.Timeout != 1500*time.Millisecond || r.MaxArgumentBytes != 100 ||
		p.Approval.Rules[0].Require != "never" || p.Limits.MaxUpstreamMessageBytes != 4 || p.Limits.MaxSchemaBytes != 5 || p.Risk.Writes != "W " || len(p.Roots) != 2 {
		t.Fatalf("%+v", p)
	}
}

// TestParsePolicyErrors: each problem is reported with the JSON path of
// the value at fault, all of them at once.
func TestParsePolicyErrors(t *testing.T) {
	_, err := ParsePolicy([]byte(`{
		"profile": "nope",
		"profiles": {"p": {"allow": ["ok", 5], "target": "cohere", "maxNameLength": 8, "dny": []}},
		"tools": {"noslash": {}, "a/b": {"approval": "sometimes", "pathArgs": ["a..b"], "name": "has.dot"}, "c/d": {"name": "same"}, "e/f": {"name": "same"}},
		"roots": [""],
		"approval": {"rules": [{"tool": "x"}]},
		"budgets": {"timeoutMs": -1},
		"limits": {"maxBlockBytes": "big", "maxSchemaBytes": -1}
	}`))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		`profile: no profile "nope"`,
		`profiles.p.allow[1]: want string, got number`,
		`profiles.p.target: want one of`,
		`profiles.p.maxNameLength: want at least 16`,
		`profiles.p.dny: unknown member`,
		`tools.noslash: want a "server/tool" key`,
		`tools["a/b"].approval: want one of ["always" "never"], got "sometimes"`,
		`tools["a/b"].pathArgs[0]:`,
		`tools["a/b"].name: "has.dot" does not match`,
		`tools["e/f"].name: "same" is also the name of "c/d"`,
		`roots[0]: empty root`,
		`approval.rules[0]: a rule needs "tool" and "require"`,
		`budgets.timeoutMs: want an integer from 0`,
		`limits.maxBlockBytes: want integer, got string`,
		`limits.maxSchemaBytes: want an integer from 0`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
	var pe *PolicyError
	if !errors.As(err, &pe) {
		t.Error("not a *PolicyError")
	}
	for _, bad := range []string{`[]`, `{} {}`, `{"profiles":`} {
		if _, err := ParsePolicy([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func FuzzParsePolicy(f *testing.F) {
	f.Add([]byte(`{"profiles":{"a":{"allow":["*"]}},"tools":{"a/b":{"pathArgs":["x[]"]}}}`))
	f.Add([]byte(`{"approval":{"rules":[{"tool":"*","require":"always"}]},"budgets":{"timeoutMs":1}}`))
	f.Add([]byte(`{"approval":{"budget":{"refusals":3,"windowMs":600000,"concurrent":1}}}`))
	f.Add([]byte(`{"approval":{"budget":{"refusals":-1,"windowMs":"x","concurrent":1e3,"other":1}}}`))
	f.Add([]byte(`{"limits":{"maxSchemaBytes":65536,"maxBlockBytes":1}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParsePolicy(b)
		if err == nil && p == nil {
			t.Fatal("nil policy without error")
		}
		if err != nil {
			var pe *PolicyError
			if !errors.As(err, &pe) {
				t.Fatalf("not a PolicyError: %v", err)
			}
		}
	})
}

func TestGlob(t *testing.T) {
	for _, c := range []struct {
		p, s string
		want bool
	}{
		{"*", "", true}, {"*", "abc", true}, {"a*c", "abbbc", true}, {"a?c", "abc", true}, {"a?c", "ac", false},
		{"*_file", "read_file", true}, {"*_file", "read_files", false}, {"中*", "中文", true}, {"a*b*c", "aXbYc", true},
		{strings.Repeat("*a", 20) + "b", strings.Repeat("a", 60), false}, // no exponential backtracking
	} {
		if got := globMatch(c.p, c.s); got != c.want {
			t.Errorf("%q %q: %v", c.p, c.s, got)
		}
	}
	if !toolPattern("fs", "fs", "anything") || toolPattern("fs/read*", "fs", "write") || !toolPattern("*/delete*", "x", "delete_file") {
		t.Error("toolPattern")
	}
}

func TestRotatingFileAudit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	rf, err := OpenRotatingFile(path, 600, 2)
	if err != nil {
		t.Fatal(err)
	}
	a := &auditor{h: slog.NewJSONHandler(rf, nil)}
	for i := range 20 {
		a.write(&Record{Time: time.Now(), Session: "s1", Exposed: "x", Code: CodeOK, Outcome: "ok", ArgumentBytes: i})
	}
	rf.Close()
	var lines int
	for _, name := range []string{path, path + ".1", path + ".2"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > 600 {
			t.Errorf("%s: %d bytes", name, len(b))
		}
		for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			var m map[string]any
			if err := json.Unmarshal(l, &m); err != nil {
				t.Fatalf("%s: %q: %v", name, l, err)
			}
			if m["exposed"] != "x" || m["code"] != "ok" {
				t.Errorf("%v", m)
			}
			lines++
		}
	}
	if _, err := os.Stat(path + ".3"); err == nil {
		t.Error("more files kept than asked")
	}
	if lines == 0 || lines > 20 {
		t.Errorf("%d lines", lines)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
}

// TestPolicyEmptyAllow: "allow": [] reads as "allow nothing", but an
// empty Allow matches every tool. It must not fail open: it is refused.
func TestPolicyEmptyAllow(t *testing.T) {
	_, err := ParsePolicy([]byte(`{"profiles":{"locked":{"allow":[]}}}`))
	if err == nil || !strings.Contains(err.Error(), `profiles.locked.allow`) {
		t.Fatalf("an empty allow list: %v", err)
	}
	if _, err := ParsePolicy([]byte(`{"profiles":{"p":{"deny":[]}}}`)); err != nil {
		t.Fatalf("an empty deny list: %v", err)
	}
}

func TestApprovalBudgetPolicy(t *testing.T) {
	p := mustPolicy(t, `{"approval":{"budget":{"refusals":5,"windowMs":1000,"concurrent":2}}}`)
	if b := p.Approval.Budget; b.Refusals != 5 || b.Window != time.Second || b.Concurrent != 2 {
		t.Errorf("%+v", b)
	}
	for doc, want := range map[string]string{
		`{"approval":{"budget":{"refusals":-1}}}`:    `approval.budget.refusals: want an integer from 0 to`,
		`{"approval":{"budget":{"windowMs":"1"}}}`:   `approval.budget.windowMs: want integer`,
		`{"approval":{"budget":{"concurrent":1.5}}}`: `approval.budget.concurrent: want an integer`,
		`{"approval":{"budget":{"refusal":1}}}`:      `approval.budget.refusal: unknown member`,
		`{"approval":{"budget":[]}}`:                 `approval.budget`,
	} {
		if _, err := ParsePolicy([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", doc, err, want)
		}
	}
}
