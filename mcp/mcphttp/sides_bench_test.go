package mcphttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

// BenchmarkHTTPSides splits a sequential tools/call over HTTP into its
// two sides, each run without the network, net/http's connection
// handling or the other side, so that what each era costs in this
// module's own code shows apart from what HTTP costs around it:
//
//   - server: Handler.ServeHTTP on the request the client sends (its body
//     and headers as recorded from a real call), into a ResponseWriter in
//     memory;
//   - client: Client.CallTool through a Stream whose http.RoundTripper
//     answers with the response the server gave (recorded the same way),
//     the id put in.
//
// The tool is echo {text} answering its text, as in the bench module's
// HTTP benchmarks. Allocations are each side's alone.
func BenchmarkHTTPSides(b *testing.B) {
	for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
		rec := recordEcho(b, v)
		b.Run("server/"+v, func(b *testing.B) { benchServerSide(b, rec) })
		b.Run("client/"+v, func(b *testing.B) { benchClientSide(b, v, rec) })
	}
}

// echoServer serves echo {text}, answering its text as one text block.
func echoServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "sides", Version: "1.0.0"}, &mcp.ServerOptions{Logger: quietLog})
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echoes."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct {
			Text string `json:"text"`
		}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	return srv
}

// recorded is one era's tools/call as it went over the wire.
type recorded struct {
	handler *mcphttp.Handler // with the session the call was made in
	header  http.Header      // of the request
	body    []byte           // of the request
	result  json.RawMessage  // of the response
}

// memoryRT serves requests with a Handler in memory. While record is
// set, it keeps the first tools/call it serves.
type memoryRT struct {
	h      http.Handler
	mu     sync.Mutex
	record *recorded
	canned json.RawMessage // once set, tools/calls are answered with it
}

func (m *memoryRT) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodPost {
		// No standalone stream: the client goes on without one.
		return &http.Response{StatusCode: http.StatusMethodNotAllowed, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	// Found by bytes, not decoded: the harness's own cost grows with the
	// body, and a stateless body is three times a legacy one. The client
	// writes "id" before "method", and both before the params.
	call := bytes.Contains(body, []byte(`"method":"tools/call"`))
	m.mu.Lock()
	canned := m.canned
	m.mu.Unlock()
	if canned != nil && call {
		i := bytes.Index(body, []byte(`"id":`)) + len(`"id":`)
		id := body[i : i+bytes.IndexByte(body[i:], ',')]
		resp := make([]byte, 0, 64+len(canned))
		resp = append(append(append(append(resp, `{"jsonrpc":"2.0","id":`...), id...), `,"result":`...), canned...)
		resp = append(resp, '}')
		return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(bytes.NewReader(resp)), ContentLength: int64(len(resp)), Request: r}, nil
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.Host = r.URL.Host
	w := &memoryWriter{header: http.Header{}}
	m.h.ServeHTTP(w, r)
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if call && m.record != nil && m.record.body == nil {
		var out struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(w.body.Bytes(), &out); err == nil {
			m.record.header, m.record.body, m.record.result = r.Header.Clone(), body, out.Result
		}
	}
	return &http.Response{StatusCode: w.status, Header: w.header, Body: io.NopCloser(bytes.NewReader(w.body.Bytes())),
		ContentLength: int64(w.body.Len()), Request: r}, nil
}

// memoryWriter is an http.ResponseWriter in memory.
type memoryWriter struct {
	header http.Header
	body   bytes.Buffer
	status int
}

func (w *memoryWriter) Header() http.Header { return w.header }
func (w *memoryWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}
func (w *memoryWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(p)
}

// recordEcho connects a client of version v to an echoServer in memory,
// makes one echo call, and returns the call as it went.
func recordEcho(b *testing.B, v string) *recorded {
	h := mcphttp.NewHandler(echoServer(), &mcphttp.HandlerOptions{Logger: quietLog})
	b.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	rec := &recorded{handler: h}
	rt := &memoryRT{h: h, record: rec}
	c := connectMemory(b, v, rt)
	if _, err := c.CallTool(context.Background(), "echo", map[string]string{"text": "hello world!"}); err != nil {
		b.Fatal(err)
	}
	if rec.body == nil || rec.result == nil {
		b.Fatalf("%s: no tools/call recorded", v)
	}
	return rec
}

func connectMemory(b *testing.B, v string, rt http.RoundTripper) *client.Client {
	stream, err := mcphttp.NewStream(context.Background(), "http://127.0.0.1/mcp", &mcphttp.ClientOptions{
		Client: &http.Client{Transport: rt}, Logger: quietLog, Stream: &transport.StreamOptions{Logger: quietLog}})
	if err != nil {
		b.Fatal(err)
	}
	c, err := client.Connect(context.Background(), stream, &client.Options{ProtocolVersion: v, Logger: quietLog})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	return c
}

// benchServerSide serves the recorded request again and again, each time
// under a new id, in the recorded session.
func benchServerSide(b *testing.B, rec *recorded) {
	const idAt = `"id":`
	i := bytes.Index(rec.body, []byte(idAt))
	j := bytes.IndexByte(rec.body[i:], ',')
	if i < 0 || j < 0 {
		b.Fatalf("no id in %s", rec.body)
	}
	head, tail := rec.body[:i+len(idAt)], rec.body[i+j:]
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header = rec.header
	var body []byte
	rd := bytes.NewReader(nil)
	w := &memoryWriter{}
	b.ReportAllocs()
	n := 1000
	for b.Loop() {
		n++
		body = append(strconv.AppendInt(append(body[:0], head...), int64(n), 10), tail...)
		rd.Reset(body)
		req.Body, req.ContentLength = io.NopCloser(rd), int64(len(body))
		*w = memoryWriter{header: http.Header{}}
		rec.handler.ServeHTTP(w, req)
		if w.status != http.StatusOK || w.body.Len() == 0 {
			b.Fatalf("status %d: %s", w.status, w.body.Bytes())
		}
	}
}

// benchClientSide calls echo through a client whose round trips are
// answered with the recorded result.
func benchClientSide(b *testing.B, v string, rec *recorded) {
	h := mcphttp.NewHandler(echoServer(), &mcphttp.HandlerOptions{Logger: quietLog})
	b.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	rt := &memoryRT{h: h}
	c := connectMemory(b, v, rt)
	rt.mu.Lock()
	rt.canned = rec.result
	rt.mu.Unlock()
	args := map[string]string{"text": "hello world!"}
	b.ReportAllocs()
	for b.Loop() {
		res, err := c.CallTool(context.Background(), "echo", args)
		if err != nil {
			b.Fatal(err)
		}
		if res.TextOf() != "hello world!" {
			b.Fatalf("result %+v", res)
		}
	}
}
