package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/transport"
)

// askServer serves a tool that asks one question and answers with what
// the client said.
func askServer(t *testing.T) *Server {
	t.Helper()
	srv := NewServer(&Implementation{Name: "s", Version: "1"}, nil)
	AddTool(srv, &Tool{Name: "ask"}, func(ctx context.Context, req *CallToolRequest, _ struct{}) (*CallToolResult, any, error) {
		res, err := req.Elicit(ctx, &ElicitParams{Message: "ok?", RequestedSchema: &ElicitationSchema{}}, InputKey("q"))
		if err != nil {
			return nil, nil, err
		}
		return &CallToolResult{Content: []Content{&TextContent{Text: "answered " + string(res.Action)}}}, nil, nil
	})
	return srv
}

// stateSession is a session bound to principal, for ServeDirect.
func stateSession(t *testing.T, srv *Server, principal string) *ServerSession {
	t.Helper()
	a, b := net.Pipe()
	ss := srv.Connect(transport.NewStream(transport.NewLineFramer(b, 0), nil))
	ss.BindPrincipal(principal)
	t.Cleanup(func() {
		a.Close()
		<-ss.Done()
	})
	return ss
}

const askMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}`

func askCall(t *testing.T, ss *ServerSession, state string) string {
	t.Helper()
	extra := ""
	if state != "" {
		extra = `"requestState":"` + state + `","inputResponses":{"q":{"action":"accept"}},`
	}
	var got string
	ss.ServeDirect(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{},`+extra+askMeta+`}}`),
		func(b []byte) { got = string(b) })
	return got
}

func askState(t *testing.T, ss *ServerSession) string {
	t.Helper()
	var v struct {
		Result struct {
			RequestState string `json:"requestState"`
		} `json:"result"`
	}
	r := askCall(t, ss, "")
	if err := json.Unmarshal([]byte(r), &v); err != nil || v.Result.RequestState == "" {
		t.Fatalf("first round: %s", r)
	}
	return v.Result.RequestState
}

// A requestState handed to one principal is refused to another: before,
// bob's retry with alice's state ran with the answers alice's round
// carried.
func TestRequestStateBoundToPrincipal(t *testing.T) {
	srv := askServer(t)
	alice, bob, nobody := stateSession(t, srv, "alice"), stateSession(t, srv, "bob"), stateSession(t, srv, "")
	st := askState(t, alice)
	for name, ss := range map[string]*ServerSession{"bob": bob, "unbound": nobody} {
		if got := askCall(t, ss, st); !strings.Contains(got, `"code":-32602`) || !strings.Contains(got, "another principal") {
			t.Errorf("%s retried with alice's state: %s", name, got)
		}
	}
	if got := askCall(t, alice, st); !strings.Contains(got, "answered accept") {
		t.Errorf("alice retried with her state: %s", got)
	}
	// Unbound sessions share the one unbound principal, as tasks do.
	if got := askCall(t, stateSession(t, srv, ""), askState(t, nobody)); !strings.Contains(got, "answered accept") {
		t.Errorf("unbound retry: %s", got)
	}
}

// A requestState is accepted for stateLifetime and then refused: before,
// a state sealed once could be replayed for as long as the key lived.
func TestRequestStateExpires(t *testing.T) {
	srv := askServer(t)
	var mu sync.Mutex
	now := time.Unix(1_800_000_000, 0)
	srv.stateNow = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}
	advance := func(d time.Duration) {
		mu.Lock()
		now = now.Add(d)
		mu.Unlock()
	}
	ss := stateSession(t, srv, "")
	st := askState(t, ss)
	advance(stateLifetime - time.Second)
	if got := askCall(t, ss, st); !strings.Contains(got, "answered accept") {
		t.Fatalf("within its lifetime: %s", got)
	}
	advance(time.Second)
	if got := askCall(t, ss, st); !strings.Contains(got, `"code":-32602`) || !strings.Contains(got, "expired") {
		t.Fatalf("past its lifetime: %s", got)
	}
	// A state sealed without a lifetime (as before) is refused too.
	old := srv.sealKeys()[0]
	b, _ := json.Marshal(&requestState{Binding: bindingOf("tools/call", "ask", json.RawMessage(`{}`)).key(), Answers: InputResponses{}, Asked: []string{"q"}})
	forever := base64URL(b) + "." + base64URL(mac(old, b))
	if got := askCall(t, ss, forever); !strings.Contains(got, "expired") {
		t.Fatalf("a state without a lifetime: %s", got)
	}
}

func base64URL(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
