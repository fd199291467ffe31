package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// The arguments shown for approval are what is sent, read plainly: no
// character can make them read otherwise (a right-to-left override
// turning "rm -rf /tmp/x" around, a line break starting a line of text
// of the model's own), and no model can bury the question.
func TestApprovalArguments(t *testing.T) {
	for _, tc := range []struct {
		name, send, want string
	}{
		{"compact", "{ \"path\" : \"/x\" ,\n \"n\": 1 }", `{"path":"/x","n":1}`},
		{"none", "", `{}`},
		{"bidi override", `{"cmd":"x` + "\u202e" + `gpj.exe"}`, `{"cmd":"x\u202egpj.exe"}`},
		{"zero width", `{"p":"a` + "\u200b" + `b"}`, `{"p":"a\u200bb"}`},
		{"line separator", `{"p":"a` + "\u2028" + `b"}`, `{"p":"a\u2028b"}`},
		{"C1 control", `{"p":"a` + "\u0085" + `b"}`, `{"p":"a\u0085b"}`},
		{"tag character", `{"p":"a` + "\U000E0041" + `"}`, `{"p":"a\udb40\udc41"}`},
		{"escapes kept", `{"p":"a\nb\"c"}`, `{"p":"a\nb\"c"}`},
		{"plain unicode", `{"p":"Grüße, 世界"}`, `{"p":"Grüße, 世界"}`},
	} {
		got := approvalArguments(json.RawMessage(tc.send))
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
		// Still the same JSON value.
		if tc.send != "" {
			var a, b any
			if json.Unmarshal([]byte(tc.send), &a) != nil || json.Unmarshal([]byte(got), &b) != nil || !jsonEqual(a, b) {
				t.Errorf("%s: %s does not decode to the value of %s", tc.name, got, tc.send)
			}
		}
	}

	long := `{"p":"` + strings.Repeat("é", 3000) + `"}`
	got := approvalArguments(json.RawMessage(long))
	if !utf8.ValidString(got) || !strings.HasPrefix(got, `{"p":"éé`) || !strings.Contains(got, "more bytes not shown") ||
		len(got) > maxApprovalArguments+64 {
		t.Errorf("long arguments: %d bytes, %q…", len(got), got[:min(len(got), 40)])
	}
}

func FuzzApprovalArguments(f *testing.F) {
	f.Add([]byte(`{"cmd":"x` + "\u202e" + `"}`))
	f.Add([]byte(`{"p":"` + strings.Repeat("\u2028", 800) + `"}`))
	f.Fuzz(func(t *testing.T, send []byte) {
		if !json.Valid(send) {
			return
		}
		got := approvalArguments(send)
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8: %q", got)
		}
		for _, r := range got {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
				t.Fatalf("%U shown raw in %q", r, got)
			}
		}
		if len(got) > maxApprovalArguments+64 {
			t.Fatalf("%d bytes shown", len(got))
		}
		if !strings.Contains(got, "more bytes not shown") {
			var a, b any
			if json.Unmarshal(send, &a) != nil || json.Unmarshal([]byte(got), &b) != nil || !jsonEqual(a, b) {
				t.Fatalf("%q shown as %q, another value", send, got)
			}
		}
	})
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// TestApprovalFlood: a model cannot make the user answer approval
// questions without end. After approval.budget.refusals questions the
// user did not accept within the window, calls that need approval are
// refused without asking (approval_budget), audited, until the window
// passes; accepted questions do not count. Both eras: a request to the
// client (legacy), an input-required result and a retried call
// (2026-07-28), whose pending question must not count against its own
// answer.
func TestApprovalFlood(t *testing.T) {
	for _, v := range []string{mcp.LatestLegacyVersion, mcp.LatestVersion} {
		t.Run(v, func(t *testing.T) { testApprovalFlood(t, v) })
	}
}

func testApprovalFlood(t *testing.T, version string) {
	var answer string
	var asked atomic.Int32
	copts := &client.Options{ProtocolVersion: version, OnElicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		asked.Add(1)
		return &mcp.ElicitResult{Action: answer}, nil
	}}
	f := start(t, &Options{Servers: inproc(), Policy: mustPolicy(t, `{"approval":{"budget":{"refusals":2,"windowMs":60000}}}`)}, copts)
	var skew atomic.Int64
	f.g.now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	del := func() Code {
		t.Helper()
		_, code := f.call(t, "up__delete", map[string]any{"path": "/x"})
		return code
	}
	answer = "accept"
	for i := range 4 { // accepted questions do not count
		if code := del(); code != CodeOK {
			t.Fatalf("accepted call %d: %s", i, code)
		}
	}
	answer = "decline"
	if code := del(); code != CodeApprovalDeclined {
		t.Fatalf("declined: %s", code)
	}
	answer = "cancel"
	if code := del(); code != CodeApprovalCancelled {
		t.Fatalf("cancelled: %s", code)
	}
	before := asked.Load()
	answer = "accept"
	res, code := f.call(t, "up__delete", map[string]any{"path": "/x"})
	if code != CodeApprovalBudget || asked.Load() != before {
		t.Fatalf("after 2 refusals: %s, asked %d more", code, asked.Load()-before)
	}
	if msg := res.TextOf(); !strings.Contains(msg, "Stop") || !strings.Contains(msg, "2") {
		t.Errorf("message %q", msg)
	}
	if rec := f.audit.last(t); rec["code"] != string(CodeApprovalBudget) || rec["approval"] != "not_asked" || rec["outcome"] != "refused" {
		t.Errorf("audit %v", rec)
	}
	// Calls that need no approval still run.
	if _, code := f.call(t, "up__echo", map[string]any{"text": "x"}); code != CodeOK {
		t.Errorf("echo: %s", code)
	}
	skew.Store(int64(time.Minute)) // the window passes: the user is asked again
	if code := del(); code != CodeOK || asked.Load() == before {
		t.Errorf("after the window: %s, asked %d more", code, asked.Load()-before)
	}
}

// TestApprovalFloodOne: with refusals 1, an accepted question still
// runs (in 2026-07-28 the question is pending between the rounds).
func TestApprovalFloodOne(t *testing.T) {
	for _, v := range []string{mcp.LatestLegacyVersion, mcp.LatestVersion} {
		t.Run(v, func(t *testing.T) {
			answer := "accept"
			copts := &client.Options{ProtocolVersion: v, OnElicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: answer}, nil
			}}
			f := start(t, &Options{Servers: inproc(), Policy: mustPolicy(t, `{"approval":{"budget":{"refusals":1}}}`)}, copts)
			for _, c := range []struct {
				answer string
				want   Code
			}{{"accept", CodeOK}, {"accept", CodeOK}, {"decline", CodeApprovalDeclined}, {"accept", CodeApprovalBudget}} {
				answer = c.answer
				if _, code := f.call(t, "up__delete", map[string]any{"path": "/x"}); code != c.want {
					t.Fatalf("%s: %s, want %s", c.answer, code, c.want)
				}
			}
		})
	}
}

// TestApprovalInFlight: a session has at most approval.budget.concurrent
// questions open at once (default 1); a call needing approval while the
// user is being asked is refused without asking.
func TestApprovalInFlight(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	var asked atomic.Int32
	copts := &client.Options{ProtocolVersion: mcp.LatestLegacyVersion, OnElicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		if asked.Add(1) == 1 {
			close(entered)
			<-release
		}
		return &mcp.ElicitResult{Action: "accept"}, nil
	}}
	f := start(t, &Options{Servers: inproc()}, copts)
	first := make(chan Code, 1)
	go func() {
		res, err := f.c.CallTool(context.Background(), "up__delete", map[string]any{"path": "/x"})
		if err != nil {
			t.Error(err)
			first <- ""
			return
		}
		first <- codeOf(res)
	}()
	<-entered
	if _, code := f.call(t, "up__delete", map[string]any{"path": "/y"}); code != CodeApprovalBudget || asked.Load() != 1 {
		t.Errorf("a second question while one is open: %s, asked %d", code, asked.Load())
	}
	close(release)
	if code := <-first; code != CodeOK {
		t.Errorf("the first call: %s", code)
	}
	if _, code := f.call(t, "up__delete", map[string]any{"path": "/z"}); code != CodeOK {
		t.Errorf("after the first question was answered: %s", code)
	}
}

// TestApprovalFloodFailedAsk: a question that fails (the client errs, or
// the wait times out) counts as not accepted.
func TestApprovalFloodFailedAsk(t *testing.T) {
	var asked atomic.Int32
	copts := &client.Options{ProtocolVersion: mcp.LatestLegacyVersion, OnElicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		asked.Add(1)
		return nil, errors.New("no answer")
	}}
	f := start(t, &Options{Servers: inproc(), Policy: mustPolicy(t, `{"approval":{"budget":{"refusals":2}}}`)}, copts)
	for i, want := range []Code{CodeApprovalUnavailable, CodeApprovalUnavailable, CodeApprovalBudget, CodeApprovalBudget} {
		if _, code := f.call(t, "up__delete", map[string]any{"path": "/x"}); code != want {
			t.Errorf("call %d: %s, want %s", i, code, want)
		}
	}
	if n := asked.Load(); n != 2 {
		t.Errorf("asked %d times, want 2", n)
	}
}

// TestApprovalFloodStateless: stateless (2026-07-28) requests over HTTP
// are each a session of their own; their questions are counted by the
// caller their calls are: all anonymous requests together, each
// authenticated subject on its own.
func TestApprovalFloodStateless(t *testing.T) {
	for _, auth := range []bool{false, true} {
		t.Run(fmt.Sprint("auth=", auth), func(t *testing.T) {
			var answer atomic.Value
			answer.Store("decline")
			call := statelessApprovalFacade(t, mustPolicy(t, `{"approval":{"budget":{"refusals":2}}}`), auth, func() string { return answer.Load().(string) })
			for i, want := range []Code{CodeApprovalDeclined, CodeApprovalDeclined, CodeApprovalBudget} {
				if code := call("alice"); code != want {
					t.Fatalf("alice's call %d: %s, want %s", i, code, want)
				}
			}
			answer.Store("accept")
			want := CodeApprovalBudget // anonymous: one count for all
			if auth {
				want = CodeOK // bob is another caller
			}
			if code := call("bob"); code != want {
				t.Errorf("bob: %s, want %s", code, want)
			}
		})
	}
}

// statelessApprovalFacade is statelessFacade for up__delete, with a
// client that answers approval questions with answer().
func statelessApprovalFacade(t *testing.T, pol *Policy, auth bool, answer func() string) func(token string) Code {
	t.Helper()
	_, url, ctx := serveFacade(t, pol, auth)
	return func(token string) Code {
		t.Helper()
		if !auth {
			token = ""
		}
		return statelessCall(ctx, t, url, token, &client.Options{
			OnElicitation: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: answer()}, nil
			}}, "up__delete", map[string]any{"path": "/x"})
	}
}

// TestApprovalBudgetCountsPlantedAnswers: a 2026-07-28 call that carries an
// answer to the approval question it was never asked (no sealed state says
// so) is asked like any other, and the question counts against the
// budget: a client must not pass every question by the budget uncounted by
// planting answers.
func TestApprovalBudgetCountsPlantedAnswers(t *testing.T) {
	ctx, conn := rawFacadeConn(t, `{"approval":{"budget":{"refusals":1}}}`)
	call := func() json.RawMessage {
		t.Helper()
		var raw json.RawMessage
		err := conn.Call(ctx, "tools/call", map[string]any{
			"name": "up__delete", "arguments": map[string]any{"path": "/x"},
			"inputResponses": map[string]any{approvalKey: map[string]any{"action": "accept"}},
			"_meta": map[string]any{
				mcp.MetaProtocolVersion:    mcp.Version20260728,
				mcp.MetaClientCapabilities: map[string]any{"elicitation": map[string]any{"form": map[string]any{}}},
			},
		}, &raw)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	var asked mcp.InputRequiredResult
	if raw := call(); json.Unmarshal(raw, &asked) != nil || asked.InputRequests[approvalKey] == nil {
		t.Fatalf("first call: %s, want the approval question (the planted answer ignored)", raw)
	}
	raw := call()
	var res mcp.CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("second call: %s: %v", raw, err)
	}
	if code := codeOf(&res); code != CodeApprovalBudget {
		t.Errorf("second call: %s (%s), want %s: the first question was not counted", code, raw, CodeApprovalBudget)
	}
}

// A retried call that brought the user's acceptance runs once: the same
// retry sent again (its requestState is accepted for an hour) is refused
// with approval_replayed, runs nothing, and gives back no refusal.
func TestApprovalAnswerUsedOnce(t *testing.T) {
	ctx, conn := rawFacadeConn(t, `{"approval":{"budget":{"refusals":1}}}`)
	call := func(state string, answer any) json.RawMessage {
		t.Helper()
		params := map[string]any{
			"name": "up__delete", "arguments": map[string]any{"path": "/x"},
			"_meta": map[string]any{
				mcp.MetaProtocolVersion:    mcp.Version20260728,
				mcp.MetaClientCapabilities: map[string]any{"elicitation": map[string]any{"form": map[string]any{}}},
			},
		}
		if state != "" {
			params["requestState"] = state
			params["inputResponses"] = map[string]any{approvalKey: answer}
		}
		var raw json.RawMessage
		if err := conn.Call(ctx, "tools/call", params, &raw); err != nil {
			t.Fatal(err)
		}
		return raw
	}
	result := func(raw json.RawMessage) Code {
		t.Helper()
		var res mcp.CallToolResult
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		return codeOf(&res)
	}
	var asked mcp.InputRequiredResult
	if raw := call("", nil); json.Unmarshal(raw, &asked) != nil || asked.InputRequests[approvalKey] == nil {
		t.Fatalf("first call: %s, want the approval question", raw)
	}
	accept := map[string]any{"action": "accept", "content": map[string]any{}}
	if code := result(call(asked.RequestState, accept)); code != CodeOK {
		t.Fatalf("the retry with the acceptance: %s, want ok", code)
	}
	for i := range 3 {
		if code := result(call(asked.RequestState, accept)); code != CodeApprovalReplayed {
			t.Fatalf("replay %d of the accepted retry: %s, want %s", i+1, code, CodeApprovalReplayed)
		}
	}
	// The replays gave back nothing: the next question is asked (the
	// refusal counted for the first one was given back once, by its
	// acceptance), and declining it uses up the budget of one.
	var again mcp.InputRequiredResult
	if raw := call("", nil); json.Unmarshal(raw, &again) != nil || again.InputRequests[approvalKey] == nil {
		t.Fatalf("a new call after the replays: %s, want the approval question", raw)
	}
	if code := result(call(again.RequestState, map[string]any{"action": "decline"})); code != CodeApprovalDeclined {
		t.Fatalf("declined: %s", code)
	}
	if code := result(call(asked.RequestState, accept)); code != CodeApprovalReplayed {
		t.Fatalf("a replay after the budget is spent: %s, want %s", code, CodeApprovalReplayed)
	}
	if raw := call("", nil); result(raw) != CodeApprovalBudget {
		t.Fatalf("a new call with the budget spent: %s, want %s: a replay gave a refusal back", raw, CodeApprovalBudget)
	}
}

// rawFacadeConn starts a facade over inproc() with policy and connects a
// bare JSON-RPC connection to it, for calls that spell their params out
// (2026-07-28 _meta, inputResponses, requestState). Everything closes
// with the test; ctx ends 30 s from now.
func rawFacadeConn(t *testing.T, policy string) (context.Context, *transport.Conn) {
	t.Helper()
	g, err := New(&Options{Servers: inproc(), Policy: mustPolicy(t, policy)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	if err := g.Start(ctx); err != nil {
		t.Fatal(err)
	}
	a, b := transport.Pipe(nil)
	g.Server().Connect(b)
	conn := transport.NewConn(a, nil, nil)
	t.Cleanup(func() { conn.Close() })
	return ctx, conn
}
