package transport

import (
	"context"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// direct runs frame through DirectRequest and h on a Conn, as an HTTP
// server does, and returns what was answered ("" for nothing) and
// whether DirectRequest took the frame.
func direct(t testing.TB, c *Conn, h Handler, frame string) (answers []string, took bool) {
	t.Helper()
	r, ok := DirectRequest([]byte(frame), func(msg []byte) { answers = append(answers, string(msg)) })
	if r != nil {
		h.Handle(context.Background(), c, r)
	}
	return answers, ok
}

// The direct path answers requests, and refuses malformed messages, with
// the bytes a Stream would write for them: ids echoed byte for byte,
// errors encoded as jsonrpc2 encodes them.
func TestDirectRequestMatchesStream(t *testing.T) {
	h := newTestHandler()
	p := newRawPeer(t, 0, h)
	for _, frame := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a\u0062","method":"ping"}`,
		`{"jsonrpc":"2.0","id":-7,"method":"echo","params":{"x":[1,2,{"y":"\u00e9"}]}}`,
		`{"jsonrpc":"2.0","id":"q","method":"nope"}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping","params":"str"}`,
		`{"jsonrpc":"1.0","id":3,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":4,"method":7}`,
		`{"jsonrpc":"2.0","id":5,"method":"ping"`,
		`not json`,
		"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"p\xffing\"}",
		`{"jsonrpc":"2.0","id":8}`,
	} {
		got, took := direct(t, p.srv, h, frame)
		if !took {
			t.Fatalf("%s: not taken", frame)
		}
		p.send(frame + "\n")
		want := p.next()
		if len(got) != 1 || got[0] != want {
			t.Errorf("%s:\n direct %q\n stream %q", frame, got, want)
		}
	}
	p.ping("99")
}

// Responses and batches are the stream's: DirectRequest leaves them.
// Notifications are taken and get no answer.
func TestDirectRequestLeaves(t *testing.T) {
	h := newTestHandler()
	for _, frame := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`,
		` [{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
	} {
		if got, took := direct(t, nil, h, frame); took || len(got) != 0 {
			t.Errorf("%s: taken %v, answered %q", frame, took, got)
		}
	}
	got, took := direct(t, nil, h, `{"jsonrpc":"2.0","method":"notifications/x","params":{"a":1}}`)
	if !took || len(got) != 0 {
		t.Fatalf("notification: taken %v, answered %q", took, got)
	}
	n := <-h.notes
	if n.Method != "notifications/x" || string(n.Params) != `{"a":1}` || n.IsDirect() {
		t.Fatalf("notification %+v", n)
	}
	// A response with a null id, which cannot be answered, is dropped.
	if got, took := direct(t, nil, h, `{"jsonrpc":"2.0","id":null,"result":{}}`); !took || len(got) != 0 {
		t.Fatalf("null-id response: taken %v, answered %q", took, got)
	}
}

// A direct request is answered at most once, and not after Release.
func TestDirectRequestOnce(t *testing.T) {
	var c *Conn // the direct path never touches the connection
	var got []string
	respond := func(msg []byte) { got = append(got, string(msg)) }
	r, _ := DirectRequest([]byte(`{"jsonrpc":"2.0","id":"x","method":"m"}`), respond)
	if !r.IsDirect() {
		t.Fatal("not direct")
	}
	if err := c.Reply(context.Background(), r, map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	_ = c.Reply(context.Background(), r, 2)
	_ = c.ReplyError(context.Background(), r, &Error{Code: 1, Message: "late"})
	if len(got) != 1 || got[0] != `{"jsonrpc":"2.0","id":"x","result":{"a":1}}` {
		t.Fatalf("answers %q", got)
	}

	got = nil
	r, _ = DirectRequest([]byte(`{"jsonrpc":"2.0","id":1,"method":"m"}`), respond)
	c.Release(r)
	_ = c.Reply(context.Background(), r, 1)
	if len(got) != 0 {
		t.Fatalf("released request answered %q", got)
	}

	// Error data is kept byte for byte; data that is not JSON is left out
	// rather than failing the answer.
	got = nil
	r, _ = DirectRequest([]byte(`{"jsonrpc":"2.0","id":2,"method":"m"}`), respond)
	_ = c.ReplyError(context.Background(), r, &Error{Code: -32000, Message: "m\n\"", Data: json.RawMessage(`{"k":[1]}`)})
	r, _ = DirectRequest([]byte(`{"jsonrpc":"2.0","id":3,"method":"m"}`), respond)
	_ = c.ReplyError(context.Background(), r, &Error{Code: -32000, Message: "m", Data: json.RawMessage(`{bad`)})
	want := []string{
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"m\n\"","data":{"k":[1]}}}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"m"}}`,
	}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("errors %q", got)
	}

	// A result that is not valid JSON becomes an internal error.
	got = nil
	r, _ = DirectRequest([]byte(`{"jsonrpc":"2.0","id":4,"method":"m"}`), respond)
	if err := c.Reply(context.Background(), r, json.RawMessage(`{`)); err == nil {
		t.Fatal("invalid result accepted")
	}
	if len(got) != 1 || !json.Valid([]byte(got[0])) {
		t.Fatalf("invalid result answered %q", got)
	}
}

// FuzzDirectRequest: whatever the frame, DirectRequest does not panic,
// answers at most once with one valid JSON object, and what it takes as a
// request has a valid method and params that are valid JSON.
func FuzzDirectRequest(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"a\u0062","method":"echo","params":{"x":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":1.0,"method":"ping"}`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}",
		`{`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		var got [][]byte
		r, took := DirectRequest(frame, func(msg []byte) { got = append(got, msg) })
		if len(got) > 1 {
			t.Fatalf("answered %d times", len(got))
		}
		for _, g := range got {
			if !json.Valid(g) || g[0] != '{' {
				t.Fatalf("answer %q", g)
			}
		}
		if r == nil {
			return
		}
		if !took || len(got) != 0 {
			t.Fatalf("request %+v with took %v, answers %q", r, took, got)
		}
		if !utf8.ValidString(r.Method) || (r.Params != nil && !json.Valid(r.Params)) {
			t.Fatalf("request %+v", r)
		}
		if r.IsDirect() == r.IsNotification() {
			t.Fatalf("direct %v for notification %v", r.IsDirect(), r.IsNotification())
		}
		if !r.IsDirect() {
			return
		}
		var c *Conn
		_ = c.Reply(context.Background(), r, json.RawMessage(`{"ok":true}`))
		if len(got) != 1 || !json.Valid(got[0]) {
			t.Fatalf("reply %q", got)
		}
	})
}
