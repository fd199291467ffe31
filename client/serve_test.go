package client_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// floodPeer is a hand-written server on a net.Pipe: it completes the
// legacy handshake, then the test writes requests with send and reads the
// client's answers from answers.
type floodPeer struct {
	conn    net.Conn
	answers chan floodAnswer
}

type floodAnswer struct {
	ID    int64
	Error *struct{ Code int64 }
}

func newFloodPeer(t *testing.T, opts *client.Options) (*floodPeer, *client.Client) {
	t.Helper()
	c1, c2 := net.Pipe()
	p := &floodPeer{conn: c2, answers: make(chan floodAnswer, 1024)}
	handshake := make(chan error, 1)
	go func() {
		defer close(p.answers)
		r := bufio.NewReaderSize(c2, 64<<10)
		for {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			var m struct {
				ID     json.RawMessage
				Method string
				Error  *struct{ Code int64 }
			}
			if json.Unmarshal(line, &m) != nil {
				continue
			}
			switch m.Method {
			case "server/discover":
				fmt.Fprintf(c2, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no"}}`+"\n", m.ID)
			case "initialize":
				fmt.Fprintf(c2, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"%s","capabilities":{},"serverInfo":{"name":"flood","version":"1"}}}`+"\n", m.ID, mcp.LatestLegacyVersion)
			case "notifications/initialized":
				handshake <- nil
			case "":
				var a floodAnswer
				_ = json.Unmarshal(m.ID, &a.ID)
				a.Error = m.Error
				p.answers <- a
			}
		}
	}()
	if opts == nil {
		opts = &client.Options{}
	}
	opts.Logger = slog.New(slog.DiscardHandler)
	stream := transport.NewStream(transport.NewLineFramer(c1, 0), &transport.StreamOptions{Logger: opts.Logger})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, stream, opts)
	if err != nil {
		t.Fatal(err)
	}
	<-handshake
	t.Cleanup(func() {
		c.Close()
		c2.Close()
		for range p.answers {
		}
	})
	return p, c
}

// send writes n requests of method, with ids 1..n, from a goroutine of its
// own (net.Pipe writes wait for the reader).
func (p *floodPeer) send(method string, params string, n int) {
	go func() {
		w := bufio.NewWriterSize(p.conn, 64<<10)
		for i := 1; i <= n; i++ {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"method":"%s","params":%s}`+"\n", i, method, params)
		}
		w.Flush()
	}()
}

// A server that floods the client with requests its handler holds gets
// at most MaxServerRequests handlers running and MaxQueuedServerRequests
// waiting; every other request is refused at once with CodeBusy, and the
// client's goroutines stay bounded.
func TestServerRequestFloodIsBounded(t *testing.T) {
	const n = 100_000
	release := make(chan struct{})
	var running, most atomic.Int64
	p, _ := newFloodPeer(t, &client.Options{OnSampling: func(ctx context.Context, _ *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
		now := running.Add(1)
		for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
		}
		defer running.Add(-1)
		<-release
		return &mcp.CreateMessageResult{Role: "assistant", Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	}})
	before := runtime.NumGoroutine()
	p.send("sampling/createMessage", `{"messages":[],"maxTokens":1}`, n)
	const served = client.DefaultMaxServerRequests + client.DefaultMaxQueuedServerRequests
	busy, peak := 0, 0
	timeout := time.After(time.Minute)
	for busy < n-served {
		select {
		case a, ok := <-p.answers:
			if !ok {
				t.Fatal("the connection closed")
			}
			if a.Error == nil || a.Error.Code != client.CodeBusy {
				t.Fatalf("answer %+v before any handler returned, want a busy error", a)
			}
			busy++
			if busy%1000 == 0 {
				peak = max(peak, runtime.NumGoroutine())
			}
		case <-timeout:
			t.Fatalf("%d busy answers after a minute, want %d", busy, n-served)
		}
	}
	if g := max(peak, runtime.NumGoroutine()) - before; g > client.DefaultMaxServerRequests+8 {
		t.Errorf("%d more goroutines during the flood, want at most the %d workers and a few", g, client.DefaultMaxServerRequests)
	}
	if m := most.Load(); m > client.DefaultMaxServerRequests {
		t.Errorf("%d handlers ran at once, want at most %d", m, client.DefaultMaxServerRequests)
	}
	close(release)
	for ok := 0; ok < served; {
		select {
		case a := <-p.answers:
			if a.Error != nil {
				t.Fatalf("answer %+v after the handlers were released, want a result", a)
			}
			ok++
		case <-time.After(10 * time.Second):
			t.Fatalf("%d results after the release, want %d", ok, served)
		}
	}
}

// A flood of pings is answered, every one, by the bounded pool or with a
// busy error, without a goroutine per ping.
func TestServerPingFlood(t *testing.T) {
	const n = 100_000
	p, _ := newFloodPeer(t, nil)
	before := runtime.NumGoroutine()
	p.send("ping", `{}`, n)
	peak := 0
	for got := 0; got < n; got++ {
		select {
		case a := <-p.answers:
			if a.Error != nil && a.Error.Code != client.CodeBusy {
				t.Fatalf("answer %+v", a)
			}
			if got%1000 == 0 {
				peak = max(peak, runtime.NumGoroutine())
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%d answers of %d", got, n)
		}
	}
	if g := peak - before; g > client.DefaultMaxServerRequests+8 {
		t.Errorf("%d more goroutines during the flood, want at most the %d workers and a few", g, client.DefaultMaxServerRequests)
	}
}

// The server's notifications/cancelled reaches the client's handler of
// the request it names: its context ends, no answer is sent (as MCP asks
// of a cancelled request), and its place in the pool is free at once. A
// request cancelled while it waits for its turn is not run at all. Before,
// the client ignored the notification: an elicitation the server gave up
// on kept prompting the user, and held one of MaxServerRequests, until
// the user answered.
func TestServerCancelsItsRequest(t *testing.T) {
	started := make(chan int, 2)
	var ran atomic.Int64
	p, _ := newFloodPeer(t, &client.Options{MaxServerRequests: 1, OnElicitation: func(ctx context.Context, e *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		ran.Add(1)
		var n int
		fmt.Sscan(e.Message, &n)
		started <- n
		if n == 1 {
			<-ctx.Done() // the user takes their time
			return nil, ctx.Err()
		}
		return &mcp.ElicitResult{Action: mcp.ElicitActionDecline}, nil
	}})
	write := func(format string, args ...any) {
		t.Helper()
		if _, err := fmt.Fprintf(p.conn, format+"\n", args...); err != nil {
			t.Fatal(err)
		}
	}
	elicit := `{"jsonrpc":"2.0","id":%d,"method":"elicitation/create","params":{"message":"%d","requestedSchema":{"type":"object","properties":{}}}}`
	write(elicit, 1, 1)
	if n := <-started; n != 1 {
		t.Fatalf("handler of request %d ran first", n)
	}
	// Request 2 waits for the only worker, and is cancelled there.
	write(elicit, 2, 2)
	write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"gave up"}}`)
	write(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"gave up"}}`)
	write(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	select {
	case a := <-p.answers:
		if a.ID != 3 || a.Error != nil {
			t.Fatalf("first answer %+v, want the ping's (3): cancelled requests get none", a)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer to the ping: the cancelled request still holds the only worker")
	}
	if n := ran.Load(); n != 1 {
		t.Errorf("%d handlers ran, want 1: a request cancelled before its turn must not run", n)
	}
}

// With a winbridge server: a tool that stops waiting for the user's
// answer (its context ends) cancels its elicitation, and the client's
// handler sees its context end instead of prompting on.
func TestServerGivesUpOnElicitation(t *testing.T) {
	started := make(chan struct{}) // the client's handler has the question
	srv := mcp.NewServer(&mcp.Implementation{Name: "impatient", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "ask"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		ctx, cancel := context.WithCancel(ctx)
		go func() {
			<-started
			cancel() // the tool gives up once the user is being asked
		}()
		if _, err := req.Elicit(ctx, &mcp.ElicitParams{Message: "?", RequestedSchema: &mcp.ElicitationSchema{Type: "object"}}); err == nil {
			return nil, nil, errors.New("an answer, want none")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "gave up"}}}, nil, nil
	})
	a, b := transport.Pipe(nil)
	srv.Connect(b)
	ended := make(chan struct{})
	c, err := client.Connect(context.Background(), a, &client.Options{ProtocolVersion: mcp.LatestLegacyVersion,
		OnElicitation: func(ctx context.Context, _ *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			close(started)
			<-ctx.Done()
			close(ended)
			return nil, ctx.Err()
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if res, err := c.CallTool(context.Background(), "ask", nil); err != nil || len(res.Content) == 0 {
		t.Fatalf("CallTool: %v %v", res, err)
	}
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the handler's context did not end when the server gave up")
	}
}
