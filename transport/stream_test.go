package transport

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

// Replies the stream makes up itself.
const (
	parseUTF8   = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: message is not valid UTF-8"}}`
	parseJSON   = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: invalid JSON"}}`
	parseEOF    = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: unexpected end of JSON input"}}`
	batchReply  = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: JSON-RPC batches are not supported; send each message on its own line"}}`
	notObject   = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a JSON-RPC message must be a JSON object"}}`
	okReply1    = `{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`
	request1    = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	badIDPrefix = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: id must be a string or an integer, not `
)

func invalid(id, why string) string {
	msg, _ := json.Marshal("invalid request: " + why)
	return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":` + string(msg) + `}}`
}

func badID(what string) string { return badIDPrefix + what + `"}}` }

func TestStreamHostileInput(t *testing.T) {
	const (
		noVersion = `member \"jsonrpc\" must be \"2.0\"`
		needs     = `a message needs \"method\" (a request or notification) or \"result\"/\"error\" (a response)`
	)
	unq := func(s string) string { u, _ := strconv.Unquote(`"` + s + `"`); return u }
	cases := []struct {
		name  string
		in    string   // raw bytes, newline included
		want  []string // the replies, in order
		notes []string // methods of the notifications the handler must see
	}{
		// Framing.
		{"LF", request1 + "\n", []string{okReply1}, nil},
		{"CRLF", request1 + "\r\n", []string{okReply1}, nil},
		{"blank and white-space lines", "\n\r\n   \n\t\t\r\n" + " \t " + request1 + " \t\r\n\n", []string{okReply1}, nil},
		{"only white space", " \t \r\n", nil, nil},
		{"spaces inside the object", `{ "jsonrpc" : "2.0" ,	"id" : 1 , "method" : "ping" }` + "\n", []string{okReply1}, nil},
		{"form feed is not JSON white space", "\f" + request1 + "\n", []string{parseJSON}, nil},
		{"byte order mark", "\xef\xbb\xbf" + request1 + "\n", []string{parseJSON}, nil},

		// Not UTF-8, not JSON.
		{"invalid UTF-8 in a string", `{"jsonrpc":"2.0","id":1,"method":"p` + "\xff" + `ing"}` + "\n", []string{parseUTF8}, nil},
		{"invalid UTF-8 outside JSON", "\xc3\x28\n", []string{parseUTF8}, nil},
		{"truncated JSON", `{"jsonrpc":"2.0","id":1,"method":"pi` + "\n", []string{parseEOF}, nil},
		{"not JSON", "hello\n", []string{parseJSON}, nil},
		{"NUL byte", "\x00\n", []string{parseJSON}, nil},
		{"truncated array", "[1,\n", []string{parseJSON}, nil},
		{"garbage after the object", request1 + " x\n", []string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: invalid character 'x' after top-level value"}}`}, nil},
		{"two objects on one line", request1 + request1 + "\n", []string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: invalid character '{' after top-level value"}}`}, nil},

		// JSON, but not an object.
		{"batch", `[` + request1 + `,{"jsonrpc":"2.0","method":"note"}]` + "\n", []string{batchReply}, nil},
		{"empty batch", "[]\n", []string{batchReply}, nil},
		{"number", "42\n", []string{notObject}, nil},
		{"string", `"str"` + "\n", []string{notObject}, nil},
		{"null", "null\n", []string{notObject}, nil},
		{"boolean", "true\n", []string{notObject}, nil},

		// Objects that are not valid requests: answered with the id when it is valid.
		{"empty object", "{}\n", []string{invalid("null", unq(noVersion))}, nil},
		{"missing jsonrpc", `{"id":5,"method":"ping"}` + "\n", []string{invalid("5", unq(noVersion))}, nil},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":5,"method":"ping"}` + "\n", []string{invalid("5", unq(noVersion))}, nil},
		{"jsonrpc as a number", `{"jsonrpc":2.0,"id":"s","method":"ping"}` + "\n", []string{invalid(`"s"`, unq(noVersion))}, nil},
		{"jsonrpc with an escape", `{"jsonrpc":"2\u002e0","id":1,"method":"ping"}` + "\n", []string{okReply1}, nil},
		{"method as a number", `{"jsonrpc":"2.0","id":5,"method":5}` + "\n", []string{invalid("5", `member "method" must be a string`)}, nil},
		{"method null", `{"jsonrpc":"2.0","id":5,"method":null}` + "\n", []string{invalid("5", `member "method" must be a string`)}, nil},
		{"method with escapes", `{"jsonrpc":"2.0","id":1,"method":"pi\u006eg"}` + "\n", []string{okReply1}, nil},
		{"params a string", `{"jsonrpc":"2.0","id":5,"method":"ping","params":"x"}` + "\n", []string{invalid("5", `member "params" must be an object or an array`)}, nil},
		{"params a number", `{"jsonrpc":"2.0","id":5,"method":"ping","params":1}` + "\n", []string{invalid("5", `member "params" must be an object or an array`)}, nil},
		{"params null", `{"jsonrpc":"2.0","id":1,"method":"ping","params":null}` + "\n", []string{okReply1}, nil},
		{"params array", `{"jsonrpc":"2.0","id":1,"method":"echo","params":[1,"a",null]}` + "\n", []string{`{"jsonrpc":"2.0","id":1,"result":[1,"a",null]}`}, nil},
		{"method and result", `{"jsonrpc":"2.0","id":5,"method":"ping","result":1}` + "\n", []string{invalid("5", `a message cannot have both "method" and "result" or "error"`)}, nil},
		{"method and error", `{"jsonrpc":"2.0","id":5,"method":"ping","error":{"code":1,"message":"m"}}` + "\n", []string{invalid("5", `a message cannot have both "method" and "result" or "error"`)}, nil},
		{"no method, no result", `{"jsonrpc":"2.0","id":5}` + "\n", []string{invalid("5", unq(needs))}, nil},

		// Ids MCP forbids: answered with id null.
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"ping"}` + "\n", []string{badID("null")}, nil},
		{"id fraction", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}` + "\n", []string{badID("a fractional or exponent number")}, nil},
		{"id whole fraction", `{"jsonrpc":"2.0","id":1.0,"method":"ping"}` + "\n", []string{badID("a fractional or exponent number")}, nil},
		{"id exponent", `{"jsonrpc":"2.0","id":1e3,"method":"ping"}` + "\n", []string{badID("a fractional or exponent number")}, nil},
		{"id negative exponent", `{"jsonrpc":"2.0","id":-1E-3,"method":"ping"}` + "\n", []string{badID("a fractional or exponent number")}, nil},
		{"id true", `{"jsonrpc":"2.0","id":true,"method":"ping"}` + "\n", []string{badID("a boolean")}, nil},
		{"id object", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}` + "\n", []string{badID("an object")}, nil},
		{"id array", `{"jsonrpc":"2.0","id":[1],"method":"ping"}` + "\n", []string{badID("an array")}, nil},

		// Ids echoed byte for byte.
		{"id 2^64", `{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}` + "\n", []string{`{"jsonrpc":"2.0","id":18446744073709551616,"result":{"ok":true}}`}, nil},
		{"id -2^64-1", `{"jsonrpc":"2.0","id":-18446744073709551617,"method":"ping"}` + "\n", []string{`{"jsonrpc":"2.0","id":-18446744073709551617,"result":{"ok":true}}`}, nil},
		{"id 100 digits", `{"jsonrpc":"2.0","id":` + strings.Repeat("9", 100) + `,"method":"ping"}` + "\n", []string{`{"jsonrpc":"2.0","id":` + strings.Repeat("9", 100) + `,"result":{"ok":true}}`}, nil},
		{"id negative", `{"jsonrpc":"2.0","id":-1,"method":"ping"}` + "\n", []string{`{"jsonrpc":"2.0","id":-1,"result":{"ok":true}}`}, nil},
		{"id minus zero", `{"jsonrpc":"2.0","id":-0,"method":"ping"}` + "\n", []string{`{"jsonrpc":"2.0","id":-0,"result":{"ok":true}}`}, nil},
		{"id zero", `{"jsonrpc":"2.0","id":0,"method":"ping"}` + "\n", []string{`{"jsonrpc":"2.0","id":0,"result":{"ok":true}}`}, nil},
		{"id string of digits", `{"jsonrpc":"2.0","id":"1","method":"ping"}` + "\n", []string{`{"jsonrpc":"2.0","id":"1","result":{"ok":true}}`}, nil},
		{"id empty string", `{"jsonrpc":"2.0","id":"","method":"ping"}` + "\n", []string{`{"jsonrpc":"2.0","id":"","result":{"ok":true}}`}, nil},
		{"id string with escapes", `{"jsonrpc":"2.0","id":"\u00e9\n\"\/\ud83d\ude00","method":"ping"}` + "\n", []string{`{"jsonrpc":"2.0","id":"\u00e9\n\"\/\ud83d\ude00","result":{"ok":true}}`}, nil},
		{"id string in raw UTF-8", `{"jsonrpc":"2.0","id":"é😀<>&","method":"ping"}` + "\n", []string{`{"jsonrpc":"2.0","id":"é😀<>&","result":{"ok":true}}`}, nil},
		{"id after params", `{"jsonrpc":"2.0","method":"ping","params":{},"id":"z"}` + "\n", []string{`{"jsonrpc":"2.0","id":"z","result":{"ok":true}}`}, nil},

		// Notifications: never answered, even when they fail.
		{"notification", `{"jsonrpc":"2.0","method":"note","params":{"a":1}}` + "\n", nil, []string{"note"}},
		{"notification without params", `{"jsonrpc":"2.0","method":"note"}` + "\n", nil, []string{"note"}},

		// Responses: never answered.
		{"response to an unknown id", `{"jsonrpc":"2.0","id":99,"result":1}` + "\n", nil, nil},
		{"error response to an unknown id", `{"jsonrpc":"2.0","id":"x","error":{"code":-1,"message":"m"}}` + "\n", nil, nil},
		{"error response with id null", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}` + "\n", nil, nil},
		{"response with id true", `{"jsonrpc":"2.0","id":true,"result":1}` + "\n", nil, nil},
		{"response without id", `{"jsonrpc":"2.0","result":1}` + "\n", nil, nil},
		{"malformed response to an unknown id", `{"result":1,"error":"x","id":3}` + "\n", nil, nil},

		// Member names are case-sensitive.
		{"ID is not id", `{"jsonrpc":"2.0","ID":1,"method":"ping"}` + "\n", nil, []string{"ping"}},
		{"Id is not id", `{"jsonrpc":"2.0","Id":1,"method":"ping"}` + "\n", nil, []string{"ping"}},
		{"Method is not method", `{"jsonrpc":"2.0","id":1,"Method":"ping"}` + "\n", []string{invalid("1", unq(needs))}, nil},
		{"JSONRPC is not jsonrpc", `{"JSONRPC":"2.0","id":1,"method":"ping"}` + "\n", []string{invalid("1", unq(noVersion))}, nil},
		{"Result is not result", `{"jsonrpc":"2.0","id":1,"Result":1}` + "\n", []string{invalid("1", unq(needs))}, nil},
		{"Params is not params", `{"jsonrpc":"2.0","id":1,"method":"echo","Params":[1]}` + "\n", []string{`{"jsonrpc":"2.0","id":1,"result":{}}`}, nil},

		// Several messages in one write.
		{"several lines at once", request1 + "\n42\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n", []string{okReply1, notObject, `{"jsonrpc":"2.0","id":2,"result":{"ok":true}}`}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkLeaks(t)
			h := newTestHandler()
			p := newRawPeer(t, 0, h)
			p.send(tc.in)
			for _, w := range tc.want {
				p.expect(w)
			}
			p.ping(`"after"`)
			p.ping(`"after"`) // the id is free again once answered
			if len(h.notes) != len(tc.notes) {
				t.Fatalf("handler saw %d notifications, want %d", len(h.notes), len(tc.notes))
			}
			for _, m := range tc.notes {
				if r := <-h.notes; r.Method != m || !r.ID.IsZero() {
					t.Errorf("notification %q (id %s), want %q", r.Method, r.ID, m)
				}
			}
			assertClean(t, p.s)
		})
	}
}

// The params a handler gets are the peer's bytes, not a re-encoding.
func TestStreamParamsByteExact(t *testing.T) {
	checkLeaks(t)
	h := newTestHandler()
	p := newRawPeer(t, 0, h)
	params := `{ "b" : [1.0, 2e3, "\u00e9<>&"], "a":{} }`
	p.send(`{"jsonrpc":"2.0","method":"note","params":` + params + "}\n")
	p.send(`{"jsonrpc":"2.0","id":1,"method":"echo","params":` + params + "}\n")
	p.expect(`{"jsonrpc":"2.0","id":1,"result":` + params + `}`)
	if r := <-h.notes; string(r.Params) != params {
		t.Errorf("notification params %s, want %s", r.Params, params)
	}
}

// A request whose id is in use by a request in progress is refused under
// that id; the first one is unaffected, and the id is free once answered.
func TestStreamDuplicateInflightID(t *testing.T) {
	for _, id := range []struct{ first, second string }{
		{`7`, `7`},
		{`"a"`, `"\u0061"`}, // the same string, spelt differently
		{`"k"`, `"k"`},
	} {
		t.Run(id.first+"/"+id.second, func(t *testing.T) {
			checkLeaks(t)
			h := newTestHandler()
			p := newRawPeer(t, 0, h)
			p.send(`{"jsonrpc":"2.0","id":` + id.first + `,"method":"hold"}` + "\n")
			held := <-h.held
			p.send(`{"jsonrpc":"2.0","id":` + id.second + `,"method":"ping"}` + "\n")
			var key ID
			_ = json.Unmarshal([]byte(id.second), &key)
			p.expect(invalid(id.second, "id "+id.second+" is already in use by a request in progress"))
			p.ping(`"other"`)
			if err := p.srv.Reply(context.Background(), held, "done"); err != nil {
				t.Fatal(err)
			}
			p.expect(`{"jsonrpc":"2.0","id":` + id.first + `,"result":"done"}`)
			p.ping(id.second)
			assertClean(t, p.s)
		})
	}
}

// A string id and a number id with the same digits are different ids.
func TestStreamStringAndNumberIDsDiffer(t *testing.T) {
	checkLeaks(t)
	h := newTestHandler()
	p := newRawPeer(t, 0, h)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"hold"}` + "\n")
	held := <-h.held
	p.ping(`"1"`)
	p.srv.Release(held)
	p.ping(`1`) // released: the id is free
	assertClean(t, p.s)
}

// Oversized messages: a LineFramer with a 1 KiB limit.
func TestStreamOversized(t *testing.T) {
	const limit = 1024
	big := strings.Repeat("x", 2*limit)
	huge := strings.Repeat("x", 2*headSize) // past the head kept for id recovery
	// over is the reply to line (without its LF) under id.
	over := func(id, line string) string {
		return invalid(id, "message of "+strconv.Itoa(len(line))+" bytes exceeds the 1024-byte limit")
	}
	exactly := func(n int) string { // a request of exactly n bytes
		head := `{"jsonrpc":"2.0","id":1,"method":"echo","params":["`
		return head + strings.Repeat("y", n-len(head)-3) + `"]}`
	}
	echoed := `{"jsonrpc":"2.0","id":1,"result":["` + strings.Repeat("y", limit-len(`{"jsonrpc":"2.0","id":1,"method":"echo","params":["`)-3) + `"]}`
	var (
		idFirst     = `{"jsonrpc":"2.0","id":"big","method":"echo","params":["` + big + `"]}`
		idEscaped   = `{"id":"\u00e9","jsonrpc":"2.0","method":"echo","params":["` + big + `"]}`
		idLast      = `{"jsonrpc":"2.0","method":"echo","params":["` + huge + `"],"id":1}`
		idInHead    = `{"jsonrpc":"2.0","method":"echo","params":["` + big + `"],"id":1}`
		idBad       = `{"jsonrpc":"2.0","id":1.5,"method":"echo","params":["` + big + `"]}`
		note        = `{"jsonrpc":"2.0","method":"note","params":["` + big + `"]}`
		afterBuf    = `{"jsonrpc":"2.0","id":2,"method":"x","params":["` + strings.Repeat("z", 200<<10) + `"]}`
		spaced      = "   " + exactly(limit) + "   "
		overByOne   = exactly(limit + 1)
		crOverByOne = exactly(limit+1) + "\r"
	)
	cases := []struct {
		name string
		in   string
		want []string
	}{
		{"id first", idFirst + "\n", []string{over(`"big"`, idFirst)}},
		{"id with escapes", idEscaped + "\n", []string{over(`"\u00e9"`, idEscaped)}},
		{"id last, past the head", idLast + "\n", []string{over("null", idLast)}},
		{"id last, within the head", idInHead + "\n", []string{over("1", idInHead)}},
		{"forbidden id", idBad + "\n", []string{over("null", idBad)}},
		{"not JSON", big + "\n", []string{over("null", big)}},
		{"notification", note + "\n", []string{over("null", note)}},
		{"response to an unknown id is dropped", `{"jsonrpc":"2.0","id":1,"result":"` + big + `"}` + "\n", nil},
		{"error response to an unknown id is dropped", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"` + big + `"}}` + "\n", nil},
		{"exactly the limit", exactly(limit) + "\n", []string{echoed}},
		{"exactly the limit, CRLF", exactly(limit) + "\r\n", []string{echoed}},
		{"exactly the limit, no final newline", exactly(limit), []string{echoed}},
		{"white space counts", spaced + "\n", []string{over("1", spaced)}},
		{"one byte over", overByOne + "\n", []string{over("1", overByOne)}},
		{"one byte over, CRLF", crOverByOne + "\n", []string{over("1", crOverByOne)}},
		{"one byte over, no final newline", overByOne, []string{over("1", overByOne)}},
		{"several in a row", big + "\n" + big + "\n" + request1 + "\n", []string{over("null", big), over("null", big), okReply1}},
		{"larger than the read buffer", afterBuf + "\n", []string{over("2", afterBuf)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkLeaks(t)
			h := newTestHandler()
			p := newRawPeer(t, limit, h)
			p.send(tc.in)
			if !strings.HasSuffix(tc.in, "\n") {
				// The line ends where the next one starts.
				p.send("\n")
			}
			for _, w := range tc.want {
				p.expect(w)
			}
			p.ping(`"after"`)
			if len(h.notes) != 0 {
				t.Errorf("an oversized notification reached the handler")
			}
			assertClean(t, p.s)
		})
	}
}

// An oversized response to one of our own calls fails that call at once,
// and the connection goes on.
func TestStreamOversizedResponseFailsCall(t *testing.T) {
	checkLeaks(t)
	c1, c2 := net.Pipe()
	cs := NewStream(NewLineFramer(c1, 1024), &StreamOptions{Logger: quiet})
	cli := NewConn(cs, nil, &ConnOptions{Logger: quiet})
	defer cli.Close()
	srv := NewConn(NewStream(NewLineFramer(c2, 0), nil), HandlerFunc(func(ctx context.Context, c *Conn, r *Request) {
		if r.Method == "big" {
			_ = c.Reply(ctx, r, strings.Repeat("x", 4096))
			return
		}
		_ = c.Reply(ctx, r, "small")
	}), &ConnOptions{Logger: quiet})
	defer srv.Close()

	err := cli.Call(context.Background(), "big", nil, nil)
	var e *Error
	want := "response too large: message of " + strconv.Itoa(len(`{"jsonrpc":"2.0","id":1,"result":""}`)+4096) + " bytes exceeds the 1024-byte limit"
	if !errors.As(err, &e) || e.Code != CodeInternalError || e.Message != want {
		t.Fatalf("call: %v, want an internal error for the oversized response", err)
	}
	var s string
	if err := cli.Call(context.Background(), "small", nil, &s); err != nil || s != "small" {
		t.Fatalf("next call: %q, %v", s, err)
	}
	if n := pendingCalls(cli); n != 0 {
		t.Errorf("jsonrpc2 holds %d pending calls", n)
	}
	assertClean(t, cs)
}

// Two peers must not answer each other's error replies forever: a reply
// with id null is dropped, never answered.
func TestStreamNoErrorPingPong(t *testing.T) {
	checkLeaks(t)
	c1, c2 := net.Pipe()
	var aFrames, bFrames atomic.Int64
	a := NewConn(NewStream(countFrames{NewLineFramer(c1, 1024), &aFrames}, &StreamOptions{Logger: quiet}), newTestHandler(), &ConnOptions{Logger: quiet})
	defer a.Close()
	b := NewConn(NewStream(countFrames{NewLineFramer(c2, 0), &bFrames}, &StreamOptions{Logger: quiet}), newTestHandler(), &ConnOptions{Logger: quiet})
	defer b.Close()
	// A notification too large for a: a answers it with id null.
	if err := b.Notify(context.Background(), "note", []string{strings.Repeat("x", 100<<10)}); err != nil {
		t.Fatal(err)
	}
	// Round trips both ways: each message is read in order, so by the time
	// they complete the error reply has been read and dealt with.
	// Bounded: with the loop, both read loops end up writing to each other.
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	for range 3 {
		if err := b.Call(ctx, "ping", nil, nil); err != nil {
			t.Fatal(err)
		}
		if err := a.Call(ctx, "ping", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	// a: one error reply, 3 replies, 3 calls; b: one notification, 3 calls, 3 replies.
	if got := aFrames.Load(); got != 7 {
		t.Errorf("a wrote %d messages, want 7", got)
	}
	if got := bFrames.Load(); got != 7 {
		t.Errorf("b wrote %d messages, want 7", got)
	}
}

type countFrames struct {
	Framer
	n *atomic.Int64
}

func (c countFrames) WriteFrame(msg []byte) error {
	c.n.Add(1)
	return c.Framer.WriteFrame(msg)
}

// A Stream used directly by jsonrpc2 (no Conn) translates ids both ways.
func TestStreamPlainJSONRPC2(t *testing.T) {
	checkLeaks(t)
	c1, c2 := net.Pipe()
	s := NewStream(NewLineFramer(c2, 0), &StreamOptions{Logger: quiet})
	srv := jsonrpc2.NewConn(context.Background(), s, jsonrpc2.HandlerWithError(func(ctx context.Context, c *jsonrpc2.Conn, r *jsonrpc2.Request) (any, error) {
		if r.Method == "echo" {
			return r.Params, nil
		}
		return nil, &jsonrpc2.Error{Code: CodeMethodNotFound, Message: r.Method}
	}), jsonrpc2.SetLogger(printfLogger{newClosingLog(quiet)}))
	lines := make(chan string, 16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r := bufio.NewReader(c1)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			lines <- strings.TrimSuffix(line, "\n")
		}
	}()
	defer func() { srv.Close(); c1.Close(); <-done }()
	send := func(s string) {
		if _, err := io.WriteString(c1, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(want string) {
		t.Helper()
		select {
		case got := <-lines:
			if got != want {
				t.Fatalf("got %s, want %s", got, want)
			}
		case <-time.After(waitLimit):
			t.Fatal("no reply")
		}
	}
	send(`{"jsonrpc":"2.0","id":"\u0041b","method":"echo","params":{"x":1}}`)
	expect(`{"jsonrpc":"2.0","id":"\u0041b","result":{"x":1}}`)
	send(`{"jsonrpc":"2.0","id":-5,"method":"nope"}`)
	expect(`{"jsonrpc":"2.0","id":-5,"error":{"code":-32601,"message":"nope"}}`)
	send(`{"jsonrpc":"2.0","id":"\u0041b","method":"echo","params":[2]}`)
	expect(`{"jsonrpc":"2.0","id":"\u0041b","result":[2]}`)

	// Calls from the jsonrpc2 side come back under their own ids.
	type res struct {
		v   string
		err error
	}
	out := make(chan res, 1)
	go func() {
		var v string
		err := srv.Call(context.Background(), "hello", []int{1}, &v)
		out <- res{v, err}
	}()
	select {
	case got := <-lines:
		var m struct {
			ID json.RawMessage
		}
		_ = json.Unmarshal([]byte(got), &m)
		send(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":"hi"}`)
	case <-time.After(waitLimit):
		t.Fatal("no request")
	}
	if r := <-out; r.err != nil || r.v != "hi" {
		t.Fatalf("call: %q, %v", r.v, r.err)
	}
	assertClean(t, s)
}

// A response that is not valid UTF-8 fails the call it answers at once,
// with an error that says why, when its id can be read; the connection
// goes on. One whose id cannot be read is dropped, never answered.
func TestStreamInvalidUTF8ResponseFailsCall(t *testing.T) {
	checkLeaks(t)
	c1, c2 := net.Pipe()
	cs := NewStream(NewLineFramer(c1, 0), &StreamOptions{Logger: quiet})
	cli := NewConn(cs, nil, &ConnOptions{Logger: quiet})
	defer cli.Close()
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		r := bufio.NewReader(c2)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			lines <- line
		}
	}()
	defer c2.Close()
	answer := func(format string) {
		t.Helper()
		select {
		case line := <-lines:
			var req struct{ ID json.RawMessage }
			if err := json.Unmarshal([]byte(line), &req); err != nil {
				t.Fatalf("request %q: %v", line, err)
			}
			if _, err := fmt.Fprintf(c2, format+"\n", req.ID); err != nil {
				t.Fatal(err)
			}
		case <-time.After(waitLimit):
			t.Fatal("no request")
		}
	}
	for _, tc := range []struct{ name, reply string }{
		{"in the result", "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"text\":\"\xff\xfe\"}}"},
		{"in an error", "{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":1,\"message\":\"\xc3\x28\"}}"},
		{"id last", "{\"jsonrpc\":\"2.0\",\"result\":\"\xff\",\"id\":%s}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			call := cli.Go(context.Background(), "m", nil)
			answer(tc.reply)
			var err error
			within(t, "the call answered with invalid UTF-8", func() { err = call.Result(nil) })
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeInternalError || e.Message != "peer sent a malformed response: message is not valid UTF-8" {
				t.Fatalf("call: %v, want an internal error naming the invalid UTF-8", err)
			}
		})
	}
	// Without a readable id: dropped, the call waits on (and is answered).
	call := cli.Go(context.Background(), "m", nil)
	answer("{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"result\":1}\n{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":\"fine\"}")
	var s string
	if err := call.Result(&s); err != nil || s != "fine" {
		t.Fatalf("next call: %q, %v", s, err)
	}
	// The next line the peer gets is the next request: nothing answered
	// the response without an id.
	call = cli.Go(context.Background(), "after", nil)
	select {
	case line := <-lines:
		if !strings.Contains(line, `"method":"after"`) {
			t.Errorf("the client answered a response: %q", line)
		}
		var req struct{ ID json.RawMessage }
		_ = json.Unmarshal([]byte(line), &req)
		fmt.Fprintf(c2, `{"jsonrpc":"2.0","id":%s,"result":null}`+"\n", req.ID)
	case <-time.After(waitLimit):
		t.Fatal("no request")
	}
	if err := call.Result(nil); err != nil {
		t.Fatal(err)
	}
	if n := pendingCalls(cli); n != 0 {
		t.Errorf("jsonrpc2 holds %d pending calls", n)
	}
	assertClean(t, cs)
}
