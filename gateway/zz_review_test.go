package gateway

// Findings of a hostile review of the schema guards (refloop.go,
// validcost.go). Each test fails on the code before its fix. A test that
// would crash the process (a stack overflow is fatal) runs the crashing
// part in a child process (reviewChild); none runs a validation that
// could take long: where the guard lets a value through, the test
// reports it and does not validate.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// reviewChild runs f in a child process (this test binary, this test
// only) and returns its combined output and whether it crashed; in the
// child, it runs f and exits. The child's stack is capped at 64 MB so
// that an overflow comes in well under a second.
func reviewChild(t *testing.T, f func()) (out string, crashed bool) {
	t.Helper()
	if os.Getenv("WINBRIDGE_REVIEW_CHILD") == t.Name() {
		debug.SetMaxStack(64 << 20)
		f()
		os.Exit(0)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	run := strings.Split(t.Name(), "/")
	for i := range run {
		run[i] = "^" + regexp.QuoteMeta(run[i]) + "$"
	}
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run="+strings.Join(run, "/"), "-test.count=1")
	cmd.Env = append(os.Environ(), "WINBRIDGE_REVIEW_CHILD="+t.Name())
	b, err := cmd.CombinedOutput()
	return string(b), err != nil
}

// Finding 1: a member given twice, exactly as written, where the last
// copy has no reference. checkRefs decodes into a map (the last copy
// wins) and, seeing no reference, returned before its duplicate check;
// encoding/json decodes the copies into one field, merging them: a
// pointer field (not, if, ...) or a slice element is decoded into again,
// keeping what the first copy set ("$ref"), and a map field keeps the
// first copy's keys. The reference loops at the place, and the first
// call overflowed the stack, ending the process.
var hiddenRefSchemas = []string{
	`{"type":"object","not":{"$ref":"#"},"not":{}}`,
	`{"type":"object","allOf":[{"$ref":"#"}],"allOf":[{}]}`,
	`{"type":"object","dependentSchemas":{"x":{"$ref":"#"}},"dependentSchemas":{}}`,
	`{"type":"object","properties":{"p":{"$ref":"#/$defs/a"}},"properties":{"p":{}},"$defs":{"a":{"allOf":[{"$ref":"#/$defs/a"}]}}}`,
}

func TestReviewDuplicateHidesRef(t *testing.T) {
	for i, s := range hiddenRefSchemas {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			r, err := compileSchema([]byte(s), true)
			if err != nil {
				return // withheld: fixed
			}
			t.Errorf("compiled %s", s)
			// What the first call did, in a child.
			out, crashed := reviewChild(t, func() {
				_ = r.Validate(map[string]any{"x": int64(1), "p": int64(1)})
			})
			if crashed && strings.Contains(out, "stack overflow") {
				t.Errorf("and validating {\"x\":1,\"p\":1} against it overflowed the stack (the child process died)")
			}
		})
	}
	// A schema with a member given twice and no reference anywhere is
	// still served (the values of default, enum and examples included).
	for _, s := range []string{
		`{"type":"object","description":"a","description":"b"}`,
		`{"type":"object","properties":{"a":{"default":{"x":1,"x":2}}}}`,
	} {
		if _, err := compileSchema([]byte(s), true); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
}

// TestReviewDuplicateHidesRefCall is finding 1 through the facade: the
// tool must be withheld (answer denied), and the facade must survive.
func TestReviewDuplicateHidesRefCall(t *testing.T) {
	if os.Getenv("WINBRIDGE_REVIEW_CHILD") == "" {
		// The call itself crashed the process before the fix: it runs
		// in a child.
		out, crashed := reviewChild(t, nil)
		if crashed {
			t.Fatalf("the facade's process died:\n%s", reviewCut(out, 1500))
		}
		return
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "dup", Version: "1"}, nil)
	ran := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
	}
	s.AddTool(&mcp.Tool{Name: "dup", InputSchema: json.RawMessage(hiddenRefSchemas[0])}, ran)
	s.AddTool(&mcp.Tool{Name: "out", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(hiddenRefSchemas[1])},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{StructuredContent: json.RawMessage(`{"p":1}`)}, nil
		})
	f := start(t, &Options{Servers: map[string]*mcp.Server{"s": s}, Policy: mustPolicy(t, `{"approval":{"default":"never"}}`)}, nil)
	debug.SetMaxStack(64 << 20)
	if res, code := f.call(t, "s__dup", json.RawMessage(`{"x":1}`)); code != CodeDenied {
		fmt.Printf("s__dup: %s %q, want denied\n", code, res.TextOf())
		os.Exit(1)
	}
	f.call(t, "s__out", json.RawMessage(`{}`))
}

func reviewCut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
