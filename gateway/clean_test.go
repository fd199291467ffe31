package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp"
)

// corpus returns the awkward schemas of testdata/schemas.
func corpus(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	files, err := filepath.Glob("testdata/schemas/*.json")
	if err != nil || len(files) < 20 {
		t.Fatalf("corpus: %v %d files", err, len(files))
	}
	out := map[string]json.RawMessage{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = b
	}
	return out
}

// expectWithheld: the corpus schemas a target cannot express at all
// (the tool is then withheld from that target's surface, and -plan says
// why); every other schema must clean and pass the checker.
var expectWithheld = map[Target][]string{
	TargetAnthropic:    {"exponential_refs"},
	TargetOpenAI:       {"exponential_refs"},
	TargetOpenAIStrict: nil, // nesting past 10 levels is cut first
	TargetGemini:       {"exponential_refs"},
}

func TestCleanCorpusPassesCheckers(t *testing.T) {
	for name, raw := range corpus(t) {
		for target, check := range checkers {
			out, _, err := cleanSchema(raw, target)
			withheld := contains(expectWithheld[target], name)
			if err != nil {
				if !withheld {
					t.Errorf("%s for %s: %v", name, target, err)
				}
				continue
			}
			if withheld {
				t.Errorf("%s for %s: cleaned, expected withheld", name, target)
			}
			m, err := decodeSchema(out)
			if err != nil {
				t.Fatal(err)
			}
			if p := check(m); len(p) > 0 {
				t.Errorf("%s for %s fails the checker: %v\n%s", name, target, p, out)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestCleanNeverLosesValidation: cleaning changes what is listed, never
// what is checked: the arguments are validated against the original.
func TestCleanNoneIsIdentity(t *testing.T) {
	for name, raw := range corpus(t) {
		out, plan, err := cleanSchema(raw, TargetNone)
		if err != nil || string(out) != string(raw) || plan != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestStrictNullsStripped(t *testing.T) {
	raw := json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"},"opts":{"type":"object","properties":{"depth":{"type":"integer"},"follow":{"type":["boolean","null"]}},"required":["depth"]}},"required":["a"]}`)
	out, plan, err := cleanSchema(raw, TargetOpenAIStrict)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"required":["a","opts"]`) {
		t.Errorf("%s", out)
	}
	var args any
	json.Unmarshal([]byte(`{"a":"x","opts":{"depth":1,"follow":null}}`), &args)
	stripNulls(args, plan)
	b, _ := json.Marshal(args)
	// follow admitted null upstream: kept. opts was optional: a null
	// there would be removed, but it is an object here.
	if string(b) != `{"a":"x","opts":{"depth":1,"follow":null}}` {
		t.Errorf("%s", b)
	}
	json.Unmarshal([]byte(`{"a":"x","opts":null}`), &args)
	stripNulls(args, plan)
	b, _ = json.Marshal(args)
	if string(b) != `{"a":"x"}` {
		t.Errorf("%s", b)
	}
}

func TestCleanRefusesRemoteRefs(t *testing.T) {
	_, _, err := cleanSchema(json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"https://example.invalid/s.json"}}}`), TargetAnthropic)
	if err == nil || errors.Is(err, errUnsupported) {
		t.Fatalf("%v", err)
	}
}

// TestUpstreamSchemasPassCheckers: the schemas of the test upstreams, as
// each profile lists them, pass the checkers.
func TestUpstreamSchemasPassCheckers(t *testing.T) {
	for target, check := range checkers {
		pol := &Policy{Profiles: map[string]*Profile{"default": {Target: target}}}
		f := start(t, &Options{Config: hostileConfig(t), Servers: inproc(), Policy: pol}, nil)
		for name, tl := range f.names(t) {
			m, err := decodeSchema(tl.InputSchema)
			if err != nil {
				t.Fatal(err)
			}
			if p := check(m); len(p) > 0 {
				t.Errorf("%s: %s: %v\n%s", target, name, p, tl.InputSchema)
			}
		}
	}
}

// FuzzCleanSchema: whatever an upstream sends, cleaning does not panic,
// and what it lists passes the target's checker.
func FuzzCleanSchema(f *testing.F) {
	files, _ := filepath.Glob("testdata/schemas/*.json")
	for _, fn := range files {
		b, _ := os.ReadFile(fn)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		for target, check := range checkers {
			out, _, err := cleanSchema(raw, target)
			if err != nil {
				continue
			}
			m, err := decodeSchema(out)
			if err != nil {
				t.Fatalf("%s: output does not decode: %v", target, err)
			}
			if p := check(m); len(p) > 0 {
				t.Fatalf("%s: %v\nin:  %s\nout: %s", target, p, raw, out)
			}
		}
	})
}

// TestStrictKeepsNumbersExact: arguments re-encoded after the null
// strip keep their numbers as written (no float64 round trip).
func TestStrictKeepsNumbersExact(t *testing.T) {
	up := upstreamServer()
	var got json.RawMessage
	up.AddTool(&mcp.Tool{Name: "big", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Ptr(true)},
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"},"opt":{"type":"string"}},"required":["n"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			got = append(json.RawMessage(nil), req.Params.Arguments...)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	pol := &Policy{Profiles: map[string]*Profile{"default": {Target: TargetOpenAIStrict}}}
	f := start(t, &Options{Servers: map[string]*mcp.Server{"up": up}, Policy: pol}, nil)
	if _, code := f.call(t, "up__big", json.RawMessage(`{"n":12345678901234567890,"opt":null}`)); code != CodeOK {
		t.Fatal(code)
	}
	if string(got) != `{"n":12345678901234567890}` {
		t.Errorf("the upstream got %s", got)
	}
	// Re-encoded without HTML escaping: < > & stay one byte each, so what
	// is sent is never larger than what the byte cap checked.
	if _, code := f.call(t, "up__big", json.RawMessage(`{"n":1,"opt":"<a&b>"}`)); code != CodeOK {
		t.Fatal(code)
	}
	if string(got) != `{"n":1,"opt":"<a&b>"}` {
		t.Errorf("the upstream got %s", got)
	}
}
