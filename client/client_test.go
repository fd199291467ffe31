package client_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

type sumIn struct {
	A int `json:"a"`
	B int `json:"b"`
}
type sumOut struct {
	Sum int `json:"sum"`
}

// fixture is a server with the tools these tests need, and probes into
// what its handlers saw.
type fixture struct {
	srv       *mcp.Server
	started   chan struct{} // receives when the "block" tool starts
	cancelled chan struct{} // closed when the "block" tool saw its context end
	running   atomic.Int32
	maxSeen   atomic.Int32
	gate      chan struct{} // "wait" tools block until it is closed
}

func newFixture(t *testing.T, opts *mcp.ServerOptions) *fixture {
	f := &fixture{started: make(chan struct{}, 16), cancelled: make(chan struct{}), gate: make(chan struct{})}
	f.srv = mcp.NewServer(&mcp.Implementation{Name: "fixture", Version: "1.2.3"}, opts)
	mcp.AddTool(f.srv, &mcp.Tool{Name: "sum", Description: "adds"}, func(ctx context.Context, req *mcp.CallToolRequest, in sumIn) (*mcp.CallToolResult, sumOut, error) {
		return nil, sumOut{in.A + in.B}, nil
	})
	var once sync.Once
	mcp.AddTool(f.srv, &mcp.Tool{Name: "block"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		select {
		case f.started <- struct{}{}:
		default:
		}
		<-ctx.Done()
		once.Do(func() { close(f.cancelled) })
		return nil, nil, ctx.Err()
	})
	mcp.AddTool(f.srv, &mcp.Tool{Name: "wait"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		n := f.running.Add(1)
		defer f.running.Add(-1)
		for {
			m := f.maxSeen.Load()
			if n <= m || f.maxSeen.CompareAndSwap(m, n) {
				break
			}
		}
		select {
		case <-f.gate:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
	})
	mcp.AddTool(f.srv, &mcp.Tool{Name: "panic"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		panic("boom")
	})
	mcp.AddTool(f.srv, &mcp.Tool{Name: "progress"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		for i := range 3 {
			if err := req.Progress(ctx, float64(i+1), 3, fmt.Sprint("step ", i+1)); err != nil {
				return nil, nil, err
			}
		}
		if err := req.Log(ctx, mcp.LevelWarning, "progress", "warned"); err != nil {
			return nil, nil, err
		}
		return nil, nil, nil
	})
	return f
}

func connect(t *testing.T, f *fixture, opts *client.Options) *client.Client {
	t.Helper()
	a, b := transport.Pipe(nil)
	f.srv.Connect(b)
	c, err := client.Connect(context.Background(), a, opts)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestBothEras(t *testing.T) {
	for _, version := range []string{"", mcp.Version20260728, mcp.Version20251125, mcp.Version20250618, mcp.Version20250326, mcp.Version20241105} {
		t.Run("version="+version, func(t *testing.T) {
			f := newFixture(t, nil)
			c := connect(t, f, &client.Options{ProtocolVersion: version})
			want := version
			if want == "" {
				want = mcp.LatestVersion
			}
			if got := c.ProtocolVersion(); got != want {
				t.Fatalf("ProtocolVersion = %q, want %q", got, want)
			}
			if got := c.ServerInfo().Version; got != "1.2.3" {
				t.Errorf("ServerInfo().Version = %q", got)
			}
			tools, err := c.ListTools(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range tools {
				names = append(names, tl.Name)
			}
			if got := strings.Join(names, ","); got != "block,panic,progress,sum,wait" {
				t.Errorf("tools = %s", got)
			}
			res, err := c.CallTool(context.Background(), "sum", map[string]int{"a": 2, "b": 40})
			if err != nil {
				t.Fatal(err)
			}
			// Structured content exists since 2025-06-18; the text mirror
			// carries the result for older revisions.
			wantStructured := "map[sum:42]"
			if want < mcp.Version20250618 {
				wantStructured = "<nil>"
			}
			if res.IsError || fmt.Sprint(res.StructuredContent) != wantStructured || res.TextOf() != `{"sum":42}` {
				t.Errorf("sum result = %+v", res)
			}
			if mcp.IsStateless(want) != (res.ResultType == mcp.ResultComplete) {
				t.Errorf("resultType = %q in %s", res.ResultType, want)
			}
			if err := c.Ping(context.Background()); err != nil {
				t.Errorf("Ping: %v", err)
			}
		})
	}
}

func TestInvalidArgumentsNameFieldAndRule(t *testing.T) {
	c := connect(t, newFixture(t, nil), nil)
	res, err := c.CallTool(context.Background(), "sum", map[string]any{"a": "two", "b": 1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.TextOf(), "/properties/a") || !strings.Contains(res.TextOf(), "integer") {
		t.Fatalf("got %+v %q", res, res.TextOf())
	}
	res, err = c.CallTool(context.Background(), "sum", map[string]any{"a": 1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.TextOf(), "required") || !strings.Contains(res.TextOf(), `"b"`) {
		t.Fatalf("missing b: %q", res.TextOf())
	}
}

func TestUnknownToolIsProtocolError(t *testing.T) {
	c := connect(t, newFixture(t, nil), nil)
	_, err := c.CallTool(context.Background(), "nope", nil)
	var e *mcp.Error
	if !errors.As(err, &e) || e.Code != mcp.CodeInvalidParams {
		t.Fatalf("err = %v", err)
	}
}

func TestUnencodableArgumentsNameTheTool(t *testing.T) {
	for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
		c := connect(t, newFixture(t, nil), &client.Options{ProtocolVersion: v})
		const want = "tools/call sum: encoding arguments: json: unsupported type: chan int"
		if _, err := c.CallTool(context.Background(), "sum", map[string]any{"a": make(chan int)}); err == nil || err.Error() != want {
			t.Errorf("%s: CallTool: %v, want %q", v, err, want)
		}
		if _, err := c.CallToolAsync(context.Background(), "sum", make(chan int)).Wait(); err == nil || err.Error() != want {
			t.Errorf("%s: CallToolAsync: %v, want %q", v, err, want)
		}
	}
}

func TestPanicBecomesInternalErrorAndSessionGoesOn(t *testing.T) {
	c := connect(t, newFixture(t, nil), &client.Options{ProtocolVersion: mcp.Version20251125})
	_, err := c.CallTool(context.Background(), "panic", nil)
	var e *mcp.Error
	if !errors.As(err, &e) || e.Code != mcp.CodeInternalError || !strings.Contains(e.Message, "boom") {
		t.Fatalf("err = %v", err)
	}
	if _, err := c.CallTool(context.Background(), "sum", sumIn{1, 2}); err != nil {
		t.Fatalf("after panic: %v", err)
	}
}

func TestCancelReachesHandler(t *testing.T) {
	for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(v, func(t *testing.T) {
			f := newFixture(t, nil)
			c := connect(t, f, &client.Options{ProtocolVersion: v})
			ctx, cancel := context.WithCancel(context.Background())
			fut := c.CallToolAsync(ctx, "block", nil)
			// Cancel a running handler: a request cancelled before it starts
			// is rightly never run at all.
			select {
			case <-f.started:
			case <-time.After(5 * time.Second):
				t.Fatal("block tool did not start")
			}
			cancel()
			if _, err := fut.Wait(); !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v", err)
			}
			select {
			case <-f.cancelled:
			case <-time.After(5 * time.Second):
				t.Fatal("handler context was not cancelled")
			}
			// The connection is healthy afterwards.
			if _, err := c.CallTool(context.Background(), "sum", sumIn{1, 1}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestTimeoutIsTyped(t *testing.T) {
	f := newFixture(t, nil)
	c := connect(t, f, &client.Options{Timeout: 50 * time.Millisecond})
	_, err := c.CallTool(context.Background(), "block", nil)
	if !errors.Is(err, client.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	_, err = c.CallTool(context.Background(), "block", nil, client.WithTimeout(20*time.Millisecond))
	if !errors.Is(err, client.ErrTimeout) {
		t.Fatalf("per-call: err = %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err = c.CallTool(ctx, "block", nil, client.WithTimeout(time.Hour))
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, client.ErrTimeout) {
		t.Fatalf("context deadline should win: err = %v", err)
	}
}

func TestPoolBoundsAndParallelism(t *testing.T) {
	const pool = 4
	f := newFixture(t, &mcp.ServerOptions{MaxConcurrency: pool})
	c := connect(t, f, nil)
	var futs []*client.Future[*mcp.CallToolResult]
	for range 2 * pool {
		futs = append(futs, c.CallToolAsync(context.Background(), "wait", nil))
	}
	// All pool slots fill up while the gate is shut: blocking tools really
	// run in parallel, and no more than the pool at once.
	deadline := time.Now().Add(5 * time.Second)
	for f.running.Load() < pool {
		if time.Now().After(deadline) {
			t.Fatalf("only %d tools running, want %d", f.running.Load(), pool)
		}
		runtimeGosched()
	}
	close(f.gate)
	for _, fu := range futs {
		if res, err := fu.Wait(); err != nil || res.TextOf() != "done" {
			t.Fatalf("res=%v err=%v", res, err)
		}
	}
	if m := f.maxSeen.Load(); m != pool {
		t.Fatalf("max concurrent tools = %d, want %d", m, pool)
	}
}

func TestProgressAndLogging(t *testing.T) {
	for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(v, func(t *testing.T) {
			var mu sync.Mutex
			var logs []string
			c := connect(t, newFixture(t, nil), &client.Options{ProtocolVersion: v, LogLevel: mcp.LevelInfo, OnLog: func(p *mcp.LoggingMessageParams) {
				mu.Lock()
				logs = append(logs, fmt.Sprint(p.Level, ":", p.Data))
				mu.Unlock()
			}})
			var got []string
			_, err := c.CallTool(context.Background(), "progress", nil, client.WithProgress(func(p *mcp.ProgressParams) {
				got = append(got, fmt.Sprintf("%v/%v %s", p.Progress, *p.Total, p.Message))
			}))
			if err != nil {
				t.Fatal(err)
			}
			if s := strings.Join(got, ";"); s != "1/3 step 1;2/3 step 2;3/3 step 3" {
				t.Errorf("progress = %s", s)
			}
			mu.Lock()
			defer mu.Unlock()
			if s := strings.Join(logs, ";"); s != "warning:warned" {
				t.Errorf("logs = %q", s)
			}
		})
	}
}

func TestToolsListChanged(t *testing.T) {
	f := newFixture(t, nil)
	changed := make(chan struct{}, 4)
	c := connect(t, f, &client.Options{ProtocolVersion: mcp.Version20251125, OnToolsChanged: func() { changed <- struct{}{} }})
	f.srv.RemoveTools("panic")
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no tools/list_changed")
	}
	tools, err := c.ListTools(context.Background())
	if err != nil || len(tools) != 4 {
		t.Fatalf("tools=%d err=%v", len(tools), err)
	}
}

func TestPagination(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "many", Version: "1"}, &mcp.ServerOptions{PageSize: 7})
	for i := range 50 {
		srv.AddTool(&mcp.Tool{Name: fmt.Sprintf("t%02d", i)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	}
	a, b := transport.Pipe(nil)
	srv.Connect(b)
	c, err := client.Connect(context.Background(), a, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	page, err := c.ListToolsPage(context.Background(), "")
	if err != nil || len(page.Tools) != 7 || page.NextCursor == "" {
		t.Fatalf("first page: %d tools, cursor %q, err %v", len(page.Tools), page.NextCursor, err)
	}
	all, err := c.ListTools(context.Background())
	if err != nil || len(all) != 50 || all[0].Name != "t00" || all[49].Name != "t49" {
		t.Fatalf("all: %d err %v", len(all), err)
	}
	_, err = c.ListToolsPage(context.Background(), "!!not-a-cursor")
	var e *mcp.Error
	if !errors.As(err, &e) || e.Code != mcp.CodeInvalidParams {
		t.Fatalf("bad cursor: %v", err)
	}
}

func TestClosedConnectionFailsCalls(t *testing.T) {
	f := newFixture(t, nil)
	c := connect(t, f, nil)
	fut := c.CallToolAsync(context.Background(), "block", nil)
	c.Close()
	if _, err := fut.Wait(); !errors.Is(err, client.ErrClosed) {
		t.Fatalf("err = %v", err)
	}
	if _, err := c.CallTool(context.Background(), "sum", sumIn{}); !errors.Is(err, client.ErrClosed) {
		t.Fatalf("after close: %v", err)
	}
}
