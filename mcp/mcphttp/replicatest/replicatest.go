package replicatest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// Server returns a server with the tools of the scenarios that name
// them (Count, Sum's "sum", ConcurrentLevels' "warn"), configured by opts.
func Server(opts *mcp.ServerOptions) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "replica", Version: "1.0.0"}, opts)
	type sumIn struct {
		A float64 `json:"a"`
		B float64 `json:"b"`
	}
	type out struct {
		Sum float64 `json:"sum"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "sum", Description: "Adds."},
		func(ctx context.Context, req *mcp.CallToolRequest, in sumIn) (*mcp.CallToolResult, out, error) {
			return nil, out{Sum: in.A + in.B}, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "count", Description: "Reports progress, then the count."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct {
			Steps int `json:"steps"`
		}) (*mcp.CallToolResult, out, error) {
			for i := 1; i <= in.Steps; i++ {
				if err := req.Progress(ctx, float64(i), float64(in.Steps), ""); err != nil {
					return nil, out{}, err
				}
			}
			return nil, out{Sum: float64(in.Steps)}, nil
		})
	srv.AddPrompt(&mcp.Prompt{Name: "ask", Description: "Asks for a name, then greets it."},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			res, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?", RequestedSchema: &mcp.ElicitationSchema{
				Properties: map[string]*mcp.PrimitiveSchemaDefinition{"name": {Type: "string"}}, Required: []string{"name"}}}, mcp.InputKey("who"))
			if err != nil {
				return nil, err
			}
			name, _ := res.Content["name"].(string)
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: mcp.RoleUser, Content: &mcp.TextContent{Text: "Hello, " + name}}}}, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Asks for a name, then greets it."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			res, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?", RequestedSchema: &mcp.ElicitationSchema{
				Properties: map[string]*mcp.PrimitiveSchemaDefinition{"name": {Type: "string"}}, Required: []string{"name"}}})
			if err != nil {
				return nil, nil, err
			}
			name, _ := res.Content["name"].(string)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Hello, " + name}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "warn", Description: "Logs a warning, if the session's level lets it, then answers."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			if err := req.Log(ctx, mcp.LevelWarning, "replicatest", "a warning"); err != nil {
				return nil, nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "warned"}}}, nil, nil
		})
	text := "x"
	srv.AddResource(&mcp.Resource{URI: "test://watched", Name: "watched"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://watched", Text: &text}}}, nil
		})
	return srv
}

// Event is one SSE event.
type Event struct {
	ID   string
	Data string
}

// Events reads SSE events from a response body.
type Events struct{ r *bufio.Reader }

// NewEvents reads the events of body.
func NewEvents(body io.Reader) *Events { return &Events{bufio.NewReader(body)} }

// Next returns the next event with data (comments and priming events
// without data are returned too, with empty Data), or io.EOF.
func (e *Events) Next() (Event, error) {
	var ev Event
	seen := false
	for {
		line, err := e.r.ReadString('\n')
		if err != nil {
			return ev, io.EOF
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if seen {
				return ev, nil
			}
		case strings.HasPrefix(line, "id:"):
			ev.ID, seen = strings.TrimSpace(line[3:]), true
		case strings.HasPrefix(line, "data:"):
			ev.Data, seen = ev.Data+strings.TrimSpace(line[5:]), true
		case strings.HasPrefix(line, "retry:"), strings.HasPrefix(line, "event:"):
			seen = true
		}
	}
}

const legacyVersion = "2025-11-25"

// Post sends a JSON-RPC message to url with the session's headers and
// returns the response; the caller closes its body.
func Post(t testing.TB, url, session, version, body string, hdr map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	return resp
}

// Result reads the JSON-RPC response of a POST, answered as JSON or as
// an SSE stream ending with it, and returns its result or fails.
func Result(t testing.TB, resp *http.Response) json.RawMessage {
	t.Helper()
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var last string
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		evs := NewEvents(resp.Body)
		for {
			ev, err := evs.Next()
			if err != nil {
				break
			}
			if ev.Data != "" {
				last = ev.Data
			}
		}
	} else {
		b, _ := io.ReadAll(resp.Body)
		last = string(b)
	}
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(last), &msg); err != nil || msg.Error != nil || msg.Result == nil {
		t.Fatalf("not a result: %s", last)
	}
	return msg.Result
}

// Initialize opens a legacy session on url and returns its id.
func Initialize(t testing.TB, url string) string {
	t.Helper()
	resp := Post(t, url, "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+legacyVersion+`","capabilities":{"elicitation":{},"sampling":{}},"clientInfo":{"name":"replicatest","version":"1"}}}`, nil)
	sid := resp.Header.Get("Mcp-Session-Id")
	Result(t, resp)
	if sid == "" {
		t.Fatal("initialize named no session")
	}
	resp = Post(t, url, sid, legacyVersion, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: status %d", resp.StatusCode)
	}
	return sid
}

// Sum calls the sum tool in session sid through url.
func Sum(t testing.TB, url, sid string, id, a, b int) {
	t.Helper()
	res := Result(t, Post(t, url, sid, legacyVersion,
		fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sum","arguments":{"a":%d,"b":%d}}}`, id, a, b), nil))
	var out struct {
		StructuredContent struct{ Sum float64 } `json:"structuredContent"`
	}
	if err := json.Unmarshal(res, &out); err != nil || out.StructuredContent.Sum != float64(a+b) {
		t.Fatalf("sum %d+%d through %s: %s", a, b, url, res)
	}
}

// LegacySession initializes a session on urls[0], uses it through every
// other, deletes it through the last, and checks that the first then
// refuses it.
func LegacySession(t *testing.T, urls []string) {
	sid := Initialize(t, urls[0])
	for i, u := range urls {
		Result(t, Post(t, u, sid, legacyVersion, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, 10+i), nil))
	}
	req, _ := http.NewRequest(http.MethodDelete, urls[len(urls)-1], nil)
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", legacyVersion)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: status %d", resp.StatusCode)
	}
	resp = Post(t, urls[0], sid, legacyVersion, `{"jsonrpc":"2.0","id":99,"method":"tools/list"}`, nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("a session deleted through another replica: status %d, want 404", resp.StatusCode)
	}
}

// StartCall calls tool with args (a JSON object) and a progress token in
// session sid through url, and reads the stream's priming event: the
// Last-Event-ID to resume from. The tool must send progress first, so
// that the answer is a stream.
func StartCall(t testing.TB, url, sid, tool, args string) (first string, resp *http.Response, rest *Events) {
	t.Helper()
	resp = Post(t, url, sid, legacyVersion,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"`+tool+`","arguments":`+args+`,"_meta":{"progressToken":"p"}}}`, nil)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body.Close()
		t.Fatalf("%s: status %d, %s; want a stream", tool, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	rest = NewEvents(resp.Body)
	ev, err := rest.Next()
	if err != nil || ev.ID == "" {
		t.Fatalf("%s: no priming event (%v)", tool, err)
	}
	return ev.ID, resp, rest
}

// OpenGET opens the GET stream of legacy session sid through url and
// fails the test unless it is served; the caller closes its body.
func OpenGET(t testing.TB, url, sid string) *http.Response {
	t.Helper()
	resp, err := http.DefaultClient.Do(newGET(url, sid))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		t.Fatalf("GET: status %d", resp.StatusCode)
	}
	return resp
}

// newGET is a GET of legacy session sid's stream through url.
func newGET(url, sid string) *http.Request {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", legacyVersion)
	return req
}

// Resume reads a stream through url from after Last-Event-ID last, until
// its response, resuming again when a replica ends the stream early, and
// returns its events with data. It fails on an event seen twice.
func Resume(t testing.TB, url, sid, last string, deadline time.Time) []Event {
	t.Helper()
	var got []Event
	seen := map[string]bool{}
	for time.Now().Before(deadline) {
		req := newGET(url, sid)
		req.Header.Set("Last-Event-ID", last)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			t.Fatalf("resume after %s through %s: status %d: %s", last, url, resp.StatusCode, b)
		}
		evs := NewEvents(resp.Body)
		for {
			ev, err := evs.Next()
			if err != nil {
				break
			}
			if ev.Data == "" {
				continue
			}
			if seen[ev.ID] {
				t.Fatalf("event %s delivered twice", ev.ID)
			}
			seen[ev.ID] = true
			got = append(got, ev)
			last = ev.ID
			if strings.Contains(ev.Data, `"result"`) {
				resp.Body.Close()
				return got
			}
		}
		resp.Body.Close()
	}
	t.Fatalf("the stream did not end by the deadline; got %d events", len(got))
	return nil
}

// ProgressTool is a tool that reports progress before its result.
type ProgressTool struct {
	Name, Args string // Args is a JSON object
	Events     int    // progress notifications and the result
}

// Count is the count tool of Server with 3 steps.
var Count = ProgressTool{Name: "count", Args: `{"steps":3}`, Events: 4}

// callToEnd calls tool through url in session sid and reads its stream to
// the end: the stream's first event id (StartCall's) and the ids of its
// events that carry data.
func callToEnd(t *testing.T, url, sid string, tool ProgressTool) (first string, ids []string) {
	t.Helper()
	first, resp, evs := StartCall(t, url, sid, tool.Name, tool.Args)
	defer resp.Body.Close()
	for {
		ev, err := evs.Next()
		if err != nil {
			return first, ids
		}
		if ev.Data != "" {
			ids = append(ids, ev.ID)
		}
	}
}

// ResumeElsewhere calls tool through urls[0], reads its stream to the end
// there, calls between (which may kill the replica of urls[0]; nil does
// nothing), and resumes the stream from its start through urls[1]: every
// progress event and the result arrive again, once each, with the ids
// they had.
func ResumeElsewhere(t *testing.T, urls []string, tool ProgressTool, between func()) {
	sid := Initialize(t, urls[0])
	first, ids := callToEnd(t, urls[0], sid, tool)
	if len(ids) != tool.Events {
		t.Fatalf("%s sent %d events, want %d", tool.Name, len(ids), tool.Events)
	}
	if between != nil {
		between()
	}
	got := Resume(t, urls[1], sid, first, time.Now().Add(30*time.Second))
	if len(got) != len(ids) {
		t.Fatalf("resumed %d events, want %d: %+v", len(got), len(ids), got)
	}
	for i, ev := range got {
		if ev.ID != ids[i] {
			t.Fatalf("resumed event %d has id %s, want %s", i, ev.ID, ids[i])
		}
	}
}

// ListenAcross opens a 2026-07-28 subscriptions/listen stream on
// urls[0] for uri, calls update (which makes another replica announce a
// change of uri), and checks that the update arrives on the stream. A bus
// delivers to the replicas connected when a change is published, and one
// that reconnects (after its store restarted) misses what came before, so
// update is repeated every 100 ms until the update arrives.
func ListenAcross(t *testing.T, urls []string, uri string, update func()) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	body := `{"jsonrpc":"2.0","id":"l1","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["` + uri + `"]},"_meta":{"` +
		mcp.MetaProtocolVersion + `":"` + mcp.Version20260728 + `","` + mcp.MetaClientCapabilities + `":{}}}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, urls[0], strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", mcp.Version20260728)
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("subscriptions/listen: status %d: %s", resp.StatusCode, b)
	}
	evs := NewEvents(resp.Body)
	for {
		ev, err := evs.Next()
		if err != nil {
			t.Fatal("the listen stream ended before its acknowledgement")
		}
		if strings.Contains(ev.Data, "notifications/subscriptions/acknowledged") {
			break
		}
	}
	arrived := make(chan struct{})
	defer close(arrived)
	go func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			update()
			select {
			case <-arrived:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	for {
		ev, err := evs.Next()
		if err != nil {
			t.Fatal("the listen stream ended before the update arrived")
		}
		if strings.Contains(ev.Data, "notifications/resources/updated") {
			if !strings.Contains(ev.Data, uri) {
				t.Fatalf("update of another resource: %s", ev.Data)
			}
			return
		}
	}
}

// Asker is a prompt that asks the client for input (a multi round-trip
// request of 2026-07-28) under Key, and whose result, given Answer (the
// JSON of an ElicitResult), contains Want.
type Asker struct {
	Prompt, Key, Answer, Want string
}

// Ask is Server's "ask" prompt.
var Ask = Asker{Prompt: "ask", Key: "who", Answer: `{"action":"accept","content":{"name":"Ada"}}`, Want: "Hello, Ada"}

// stateless sends a 2026-07-28 prompts/get with extra params (a JSON
// fragment, "" for none) and returns the raw JSON-RPC response.
func stateless(t testing.TB, url, prompt, extra string) string {
	t.Helper()
	if extra != "" {
		extra = "," + extra
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"` + prompt + `"` + extra + `,"_meta":{"` +
		mcp.MetaProtocolVersion + `":"` + mcp.Version20260728 + `","` + mcp.MetaClientCapabilities + `":{"elicitation":{"form":{}}}}}}`
	resp := Post(t, url, "", mcp.Version20260728, body, map[string]string{"Mcp-Method": "prompts/get", "Mcp-Name": prompt})
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// RequestStateAcross asks on urls[0] and answers on urls[1]: the
// requestState sealed by one replica opens on the other. The same state
// with its signature altered is refused.
func RequestStateAcross(t *testing.T, urls []string, a Asker) {
	first := stateless(t, urls[0], a.Prompt, "")
	var ir struct {
		Result struct {
			RequestState string `json:"requestState"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(first), &ir); err != nil || ir.Result.RequestState == "" {
		t.Fatalf("no requestState from the first round: %s", first)
	}
	answer := func(state string) string {
		st, _ := json.Marshal(state)
		return stateless(t, urls[1], a.Prompt, `"inputResponses":{"`+a.Key+`":`+a.Answer+`},"requestState":`+string(st))
	}
	if got := answer(ir.Result.RequestState); !strings.Contains(got, a.Want) {
		t.Fatalf("the other replica did not accept the sealed state: %s", got)
	}
	st := ir.Result.RequestState
	i := strings.LastIndexByte(st, '.') + 1
	flip := byte('A')
	if st[i] == 'A' {
		flip = 'B'
	}
	tampered := st[:i] + string(flip) + st[i+1:]
	if got := answer(tampered); strings.Contains(got, a.Want) || !strings.Contains(got, "requestState") {
		t.Fatalf("a tampered requestState was not refused as such: %s", got)
	}
}

// Elicitor is a tool that, in a legacy session, sends the client an
// elicitation/create request before its result; answered with Answer (the
// JSON of an ElicitResult), its result contains Want.
type Elicitor struct {
	Name, Args, Answer, Want string
}

// Greet is Server's "greet" tool.
var Greet = Elicitor{Name: "greet", Args: `{}`, Answer: `{"action":"accept","content":{"name":"Ada"}}`, Want: "Hello, Ada"}

// AnswerElsewhere calls tool through urls[0], and answers the request the
// tool sends on its stream through urls[1]: the answer reaches the
// replica that asked, and the result arrives on the first stream.
func AnswerElsewhere(t *testing.T, urls []string, tool Elicitor) {
	sid := Initialize(t, urls[0])
	resp := Post(t, urls[0], sid, legacyVersion,
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"`+tool.Name+`","arguments":`+tool.Args+`}}`, nil)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("%s: status %d, %s; want a stream", tool.Name, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	evs := NewEvents(resp.Body)
	answered := false
	for {
		ev, err := evs.Next()
		if err != nil {
			t.Fatalf("the stream of %s ended without its result (answered: %v)", tool.Name, answered)
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if ev.Data == "" || json.Unmarshal([]byte(ev.Data), &msg) != nil {
			continue
		}
		switch {
		case msg.Method == "elicitation/create" && !answered:
			answered = true
			r := Post(t, urls[1], sid, legacyVersion, `{"jsonrpc":"2.0","id":`+string(msg.ID)+`,"result":`+tool.Answer+`}`, nil)
			r.Body.Close()
			if r.StatusCode != http.StatusAccepted {
				t.Fatalf("the answer through another replica: status %d", r.StatusCode)
			}
		case msg.Method == "" && strings.Contains(ev.Data, `"result"`):
			if !strings.Contains(ev.Data, tool.Want) {
				t.Fatalf("result %s, want %q", ev.Data, tool.Want)
			}
			return
		case msg.Method == "" && strings.Contains(ev.Data, `"error"`):
			t.Fatalf("%s failed: %s", tool.Name, ev.Data)
		}
	}
}

// SubscribeElsewhere opens a session's GET stream on urls[0], subscribes
// to uri through urls[1], and calls update (which makes a replica
// announce a change of uri) every 100 ms until the update arrives on the
// GET stream, for at most 20 s.
func SubscribeElsewhere(t *testing.T, urls []string, uri string, update func()) {
	sid := Initialize(t, urls[0])
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, urls[0], nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", legacyVersion)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET: status %d", resp.StatusCode)
	}
	Result(t, Post(t, urls[1], sid, legacyVersion, `{"jsonrpc":"2.0","id":3,"method":"resources/subscribe","params":{"uri":"`+uri+`"}}`, nil))
	arrived := make(chan struct{})
	defer close(arrived)
	go func() {
		tk := time.NewTicker(100 * time.Millisecond)
		defer tk.Stop()
		for {
			update()
			select {
			case <-arrived:
				return
			case <-ctx.Done():
				return
			case <-tk.C:
			}
		}
	}()
	evs := NewEvents(resp.Body)
	for {
		ev, err := evs.Next()
		if err != nil {
			t.Fatal("the GET stream ended (or 20 s passed) before the update of a resource subscribed to through another replica")
		}
		if strings.Contains(ev.Data, "notifications/resources/updated") && strings.Contains(ev.Data, uri) {
			return
		}
	}
}

// Warns calls Server's warn tool in session sid through url and reports
// whether the call carried the warning: whether the session's log level,
// on that replica, is warning or below.
func Warns(t testing.TB, url, sid string, id int) bool {
	t.Helper()
	resp := Post(t, url, sid, legacyVersion,
		fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"warn","arguments":{}}}`, id), nil)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// A call that sent nothing before its result may be answered
		// as plain JSON: no warning.
		Result(t, resp)
		return false
	}
	defer resp.Body.Close()
	// The warning is sent about the call, on its stream, before the
	// result.
	evs := NewEvents(resp.Body)
	warned := false
	for {
		ev, err := evs.Next()
		if err != nil {
			t.Fatalf("warn through %s: the stream ended without a result", url)
		}
		switch {
		case strings.Contains(ev.Data, `"notifications/message"`):
			warned = true
		case strings.Contains(ev.Data, `"result"`):
			return warned
		case strings.Contains(ev.Data, `"error"`):
			t.Fatalf("warn through %s: %s", url, ev.Data)
		}
	}
}

// SetLevel sets the log level of session sid through url.
func SetLevel(t testing.TB, url, sid string, id int, level string) {
	t.Helper()
	Result(t, Post(t, url, sid, legacyVersion,
		fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"logging/setLevel","params":{"level":%q}}`, id, level), nil))
}

// ConcurrentLevels sets a session's log level through two replicas at
// once and checks that every replica ends with the level the session's
// record ends with, not each with the one it applied last. afterLoad
// arms f to run once, right after the next load of the replicas'
// session store has read the record: urls[1]'s setLevel(error) loads
// the record, then f sets debug through urls[0] (recorded and applied
// there first), then urls[1] records error after it. The record ends
// with error, so no replica, urls[2] included if given, lets a warning
// through.
func ConcurrentLevels(t *testing.T, urls []string, afterLoad func(f func())) {
	sid := Initialize(t, urls[0])
	Sum(t, urls[1], sid, 2, 1, 2) // urls[1] serves the session too
	afterLoad(func() { SetLevel(t, urls[0], sid, 3, "debug") })
	SetLevel(t, urls[1], sid, 4, "error")
	for i, u := range urls {
		if Warns(t, u, sid, 10+i) {
			t.Errorf("replica %d logs a warning: its level is not the record's last one (error)", i)
		}
	}
	// The probe tells the levels apart: a later debug, through either
	// replica, lets warnings through on every one.
	SetLevel(t, urls[1], sid, 5, "debug")
	for i, u := range urls {
		if !Warns(t, u, sid, 20+i) {
			t.Errorf("replica %d logs no warning at level debug", i)
		}
	}
}

// ResumeBeyond calls tool through urls[0] and reads its stream to the
// end, then resumes it through each of urls with a Last-Event-ID one
// past its last event: each refuses with 410 Gone, as the stream never
// sent that event (resuming after it would skip events unseen). The
// last event's own id is still a valid resume point, and the one before
// it gives exactly the last event.
func ResumeBeyond(t *testing.T, urls []string, tool ProgressTool) {
	sid := Initialize(t, urls[0])
	_, ids := callToEnd(t, urls[0], sid, tool)
	if len(ids) != tool.Events || tool.Events < 2 {
		t.Fatalf("%s sent %d events, want %d (at least 2)", tool.Name, len(ids), tool.Events)
	}
	last := ids[len(ids)-1]
	i := strings.LastIndexByte(last, '_')
	n, err := strconv.Atoi(last[i+1:])
	if i < 0 || err != nil {
		t.Fatalf("event id %q is not stream_number", last)
	}
	for _, u := range urls {
		for _, beyond := range []string{last[:i+1] + strconv.Itoa(n+1), last[:i+1] + "9223372036854775807", last[:i+1] + "99999999999999999999999"} {
			req := newGET(u, sid)
			req.Header.Set("Last-Event-ID", beyond)
			r, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(r.Body)
			r.Body.Close()
			if r.StatusCode != http.StatusGone {
				t.Fatalf("resume after %s through %s: status %d (%s), want 410", beyond, u, r.StatusCode, b)
			}
		}
		req := newGET(u, sid)
		req.Header.Set("Last-Event-ID", last)
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if r.StatusCode != http.StatusOK {
			r.Body.Close()
			t.Fatalf("resume after the last event %s through %s: status %d, want 200", last, u, r.StatusCode)
		}
		for evs := NewEvents(r.Body); ; {
			ev, err := evs.Next()
			if err != nil {
				break
			}
			if ev.Data != "" {
				t.Fatalf("resume after the last event %s through %s: got %+v", last, u, ev)
			}
		}
		r.Body.Close()
		got := Resume(t, u, sid, ids[len(ids)-2], time.Now().Add(30*time.Second))
		if len(got) != 1 || got[0].ID != last {
			t.Fatalf("resume after %s through %s: %+v, want only %s", ids[len(ids)-2], u, got, last)
		}
	}
}
