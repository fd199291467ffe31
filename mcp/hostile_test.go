package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// wire is a raw NDJSON connection to a server session.
type wire struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
}

func newWire(t *testing.T) *wire {
	srv := mcp.NewServer(&mcp.Implementation{Name: "h", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	return connectWire(t, srv)
}

// connectWire connects a raw NDJSON connection to srv, closed (and the
// session awaited) when the test ends.
func connectWire(t *testing.T, srv *mcp.Server) *wire {
	a, b := net.Pipe()
	ss := srv.Connect(transport.NewStream(transport.NewLineFramer(b, 0), nil))
	t.Cleanup(func() {
		a.Close()
		<-ss.Done()
	})
	return &wire{t: t, conn: a, r: bufio.NewReader(a)}
}

// initializedWire is connectWire with the session initialized (2025-11-25)
// by a client declaring caps, a JSON object.
func initializedWire(t *testing.T, srv *mcp.Server, caps string) *wire {
	w := connectWire(t, srv)
	w.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"clientInfo":{"name":"c","version":"1"}}}`)
	w.recv()
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return w
}

func (w *wire) send(line string) {
	w.t.Helper()
	w.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := w.conn.Write([]byte(line + "\n")); err != nil {
		w.t.Fatalf("write: %v", err)
	}
}

func (w *wire) recv() string {
	w.t.Helper()
	w.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := w.r.ReadString('\n')
	if err != nil {
		w.t.Fatalf("read: %v", err)
	}
	return strings.TrimSuffix(line, "\n")
}

// exchange sends a line and checks the exact reply.
func (w *wire) exchange(send, want string) {
	w.t.Helper()
	w.send(send)
	if got := w.recv(); got != want {
		w.t.Errorf("sent %s\n got %s\nwant %s", send, got, want)
	}
}

const initLine = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`

func TestHostileInputExactReplies(t *testing.T) {
	w := newWire(t)
	notInit := `"error":{"code":-32600,"message":"invalid request: the session is not initialized; send initialize first, or use protocol version 2026-07-28 with its _meta"}}`
	// Before initialize: only ping (and discovery) may run.
	w.exchange(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":1,`+notInit)
	w.exchange(`{"jsonrpc":"2.0","id":"p","method":"ping"}`, `{"jsonrpc":"2.0","id":"p","result":{}}`)
	w.exchange(initLine, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"logging":{}},"serverInfo":{"name":"h","version":"1"}}}`)
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	cases := []struct{ name, send, want string }{
		{"not JSON", `{"jsonrpc":"2.0",`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: unexpected end of JSON input"}}`},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: message is not valid UTF-8"}}`},
		{"not an object", `42`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a JSON-RPC message must be a JSON object"}}`},
		{"batch", `[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: JSON-RPC batches are not supported; send each message on its own line"}}`},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: id must be a string or an integer, not null"}}`},
		{"fraction id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: id must be a string or an integer, not a fractional or exponent number"}}`},
		{"boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: id must be a string or an integer, not a boolean"}}`},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: id must be a string or an integer, not an object"}}`},
		{"wrong version", `{"jsonrpc":"1.0","id":4,"method":"ping"}`, `{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"invalid request: member \"jsonrpc\" must be \"2.0\""}}`},
		{"method not a string", `{"jsonrpc":"2.0","id":5,"method":7}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"invalid request: member \"method\" must be a string"}}`},
		{"unknown method", `{"jsonrpc":"2.0","id":6,"method":"no/such"}`, `{"jsonrpc":"2.0","id":6,"error":{"code":-32601,"message":"Method not found: no/such"}}`},
		{"wrong param type", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":5}}`, `{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"invalid params for tools/call: json: cannot unmarshal number into Go struct field CallToolParams.name of type string"}}`},
		{"unknown tool", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"nope"}}`, `{"jsonrpc":"2.0","id":8,"error":{"code":-32602,"message":"Unknown tool: \"nope\""}}`},
		{"huge negative id", `{"jsonrpc":"2.0","id":-123456789012345678901234567890,"method":"ping"}`, `{"jsonrpc":"2.0","id":-123456789012345678901234567890,"result":{}}`},
		{"escaped string id", `{"jsonrpc":"2.0","id":"a\u00e9\"b","method":"ping"}`, `{"jsonrpc":"2.0","id":"a\u00e9\"b","result":{}}`},
		{"CRLF and blanks", "\r\n   \r\n  {\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}  \r", `{"jsonrpc":"2.0","id":9,"result":{}}`},
		{"unsupported 2026 version", `{"jsonrpc":"2.0","id":10,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01"}}}`, `{"jsonrpc":"2.0","id":10,"error":{"code":-32022,"message":"Unsupported protocol version \"1900-01-01\"","data":{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26","2024-11-05"],"requested":"1900-01-01"}}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w.t = t
			w.exchange(c.send, c.want)
			// The session keeps serving after every hostile input.
			w.exchange(`{"jsonrpc":"2.0","id":"alive","method":"tools/call","params":{"name":"echo","arguments":{"text":"ok"}}}`,
				`{"jsonrpc":"2.0","id":"alive","result":{"content":[{"type":"text","text":"ok"}]}}`)
		})
	}
}

func TestUnknownResponseIDIsDropped(t *testing.T) {
	w := newWire(t)
	w.exchange(initLine, w.initReply())
	// A response to nothing is not answered; the next request is.
	w.send(`{"jsonrpc":"2.0","id":99,"result":{}}`)
	w.exchange(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`)
}

func (w *wire) initReply() string {
	return `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"logging":{}},"serverInfo":{"name":"h","version":"1"}}}`
}

func TestVersionNegotiation(t *testing.T) {
	for requested, want := range map[string]string{
		"2024-11-05": "2024-11-05",
		"2025-03-26": "2025-03-26",
		"2025-06-18": "2025-06-18",
		"2025-11-25": "2025-11-25",
		"2026-07-28": "2025-11-25", // stateless clients do not initialize
		"2099-01-01": "2025-11-25",
		"1999-01-01": "2025-11-25",
	} {
		w := newWire(t)
		w.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + requested + `","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
		if got := w.recv(); !strings.Contains(got, `"protocolVersion":"`+want+`"`) {
			t.Errorf("requested %s: %s", requested, got)
		}
	}
}

// TestPipelinedAfterInitialize sends a request right behind initialize,
// without waiting for its answer: session state changes take effect in
// arrival order.
func TestPipelinedAfterInitialize(t *testing.T) {
	for range 20 {
		w := newWire(t)
		w.send(initLine + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`)
		replies := map[string]bool{}
		for range 2 {
			replies[w.recv()] = true
		}
		want := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}`
		if !replies[want] || !replies[w.initReply()] {
			t.Fatalf("replies %v", replies)
		}
	}
}

// TestBatches: a 2025-03-26 session accepts JSON-RPC batches and answers
// them with one array; other revisions refuse them.
func TestBatches(t *testing.T) {
	init := func(v string) string {
		return `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + v + `","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	}
	w := newWire(t)
	w.send(init("2025-03-26"))
	if got := w.recv(); !strings.Contains(got, `"protocolVersion":"2025-03-26"`) {
		t.Fatalf("initialize: %s", got)
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	w.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"},` +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}},` +
		`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"echo","arguments":{"text":"in a batch"}}},` +
		`{"jsonrpc":"2.0","id":true,"method":"ping"}]`)
	got := w.recv()
	var replies []map[string]any
	if err := json.Unmarshal([]byte(got), &replies); err != nil {
		t.Fatalf("not an array: %s", got)
	}
	if len(replies) != 3 {
		t.Fatalf("want 3 responses (two requests, one invalid element; none for the notification): %s", got)
	}
	for _, want := range []string{`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":"b","result":{"content":[{"type":"text","text":"in a batch"}]}}`, `"id":null,"error":{"code":-32600`} {
		if !strings.Contains(got, want) {
			t.Errorf("batch response lacks %s:\n%s", want, got)
		}
	}
	// A batch of notifications only gets no response; the next request does.
	w.send(`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`)
	w.exchange(`{"jsonrpc":"2.0","id":2,"method":"ping"}`, `{"jsonrpc":"2.0","id":2,"result":{}}`)
	w.exchange(`[]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: an empty batch"}}`)

	w2 := newWire(t)
	w2.send(init("2025-11-25"))
	w2.recv()
	w2.exchange(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: JSON-RPC batches are not supported; send each message on its own line"}}`)
}
