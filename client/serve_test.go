package client_test

import (
	"bufio"
	"context"
	"encoding/json"
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
