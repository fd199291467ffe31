package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/winbridge/winbridge/transport"
)

// floodFramer is a client that pipelines requests as fast as the server
// reads them and does not read a single reply until gate is closed.
type floodFramer struct {
	pre     [][]byte // sent first
	n       int      // requests after pre
	req     func(i int) []byte
	reads   atomic.Int64
	allRead chan struct{} // closed when the server asks for more than there is
	gate    chan struct{} // replies are taken only once closed
	out     chan []byte
	done    chan struct{}
	once    sync.Once
}

func (f *floodFramer) ReadFrame() ([]byte, error) {
	i := int(f.reads.Add(1)) - 1
	switch {
	case i < len(f.pre):
		return f.pre[i], nil
	case i < len(f.pre)+f.n:
		return f.req(i - len(f.pre)), nil
	}
	if i == len(f.pre)+f.n {
		close(f.allRead)
	}
	<-f.done
	return nil, io.EOF
}

func (f *floodFramer) WriteFrame(msg []byte) error {
	select {
	case <-f.gate:
	case <-f.done:
		return io.ErrClosedPipe
	}
	select {
	case f.out <- append([]byte(nil), msg...):
		return nil
	case <-f.done:
		return io.ErrClosedPipe
	}
}

func (f *floodFramer) Close() error {
	f.once.Do(func() { close(f.done) })
	return nil
}

// A client that pipelines requests without reading the replies makes the
// server stop reading once MaxInFlight requests are unanswered, instead of
// growing a goroutine and a buffered reply per request; once the client
// reads, every request is answered.
func TestPipelinedRequestsWithoutReadingAreBounded(t *testing.T) {
	const limit, n = 16, 20000
	srv := NewServer(&Implementation{Name: "s", Version: "1"}, &ServerOptions{MaxInFlight: limit})
	AddTool(srv, &Tool{Name: "echo"}, func(_ context.Context, _ *CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*CallToolResult, any, error) {
		return &CallToolResult{Content: []Content{&TextContent{Text: in.Text}}}, nil, nil
	})
	f := &floodFramer{
		pre: [][]byte{
			[]byte(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`),
			[]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		},
		n: n,
		req: func(i int) []byte {
			if i%2 == 0 {
				return []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"ping"}`)
			}
			return []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"some text to hold"}}}`)
		},
		allRead: make(chan struct{}),
		gate:    make(chan struct{}),
		out:     make(chan []byte, n+1),
		done:    make(chan struct{}),
	}
	stalled := make(chan struct{}, 1)
	hook := func(*ServerSession) {
		select {
		case stalled <- struct{}{}:
		default:
		}
	}
	testHookAdmitWait.Store(&hook)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	baseG := runtime.NumGoroutine()

	ss := srv.Connect(transport.NewStream(f, nil))
	t.Cleanup(func() {
		ss.Close()
		<-ss.Done()
		ss.awaitHandlers(context.Background(), 5*time.Second)
		testHookAdmitWait.Store(nil)
	})
	select {
	case <-stalled:
	case <-f.allRead:
		t.Fatalf("the server read all %d requests while none of its replies was written: nothing bounds what a session buffers", n)
	}
	// The read loop now waits for a slot, and no slot can free before a
	// reply is written: what was read is all that will be read.
	if got := f.reads.Load(); got > int64(len(f.pre)+limit+1) {
		t.Errorf("read %d messages with %d in flight allowed", got, limit)
	}
	runtime.GC()
	var during runtime.MemStats
	runtime.ReadMemStats(&during)
	if g := runtime.NumGoroutine() - baseG; g > limit+16 {
		t.Errorf("%d goroutines more than before, with %d requests in flight allowed", g, limit)
	}
	if grew := int64(during.HeapAlloc) - int64(before.HeapAlloc); grew > 4<<20 {
		t.Errorf("heap grew by %d bytes while the client read nothing", grew)
	}

	close(f.gate)
	seen := map[string]bool{}
	deadline := time.After(30 * time.Second)
	for len(seen) < n+1 {
		var msg []byte
		select {
		case msg = <-f.out:
		case <-deadline:
			t.Fatalf("%d of %d requests answered", len(seen), n+1)
		}
		var resp struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *Error          `json:"error"`
		}
		if err := json.Unmarshal(msg, &resp); err != nil {
			t.Fatalf("reply %s: %v", msg, err)
		}
		if resp.Error != nil || resp.Result == nil {
			t.Fatalf("reply %s: want a result", msg)
		}
		if seen[string(resp.ID)] {
			t.Fatalf("id %s answered twice", resp.ID)
		}
		seen[string(resp.ID)] = true
	}
}

type pipeRWC struct {
	io.Reader
	io.WriteCloser
}

// The same over OS pipes and the line framer, as over stdio: once the
// reply pipe is full, the server stops reading the request pipe, and the
// client's writes block instead of the server's memory growing.
func TestPipelinedOverPipesStopsReading(t *testing.T) {
	const limit, n = 16, 20000 // far more than both pipes and the slots hold
	srv := NewServer(&Implementation{Name: "s", Version: "1"}, &ServerOptions{MaxInFlight: limit})
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stalled := make(chan struct{}, 1)
	hook := func(*ServerSession) {
		select {
		case stalled <- struct{}{}:
		default:
		}
	}
	testHookAdmitWait.Store(&hook)
	ss := srv.Connect(transport.NewStream(transport.NewLineFramer(pipeRWC{inR, outW}, 0), nil))
	t.Cleanup(func() {
		inW.Close()
		outR.Close()
		ss.Close()
		<-ss.Done()
		ss.awaitHandlers(context.Background(), 5*time.Second)
		testHookAdmitWait.Store(nil)
		inR.Close()
	})
	var written atomic.Int64
	wrote := make(chan error, 1)
	go func() {
		for i := range n {
			if _, err := inW.Write([]byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"ping"}` + "\n")); err != nil {
				wrote <- err
				return
			}
			written.Add(1)
		}
		wrote <- nil
	}()
	select {
	case <-stalled:
	case err := <-wrote:
		t.Fatalf("the client wrote all %d requests (err %v) without reading a reply: the server buffered them all", n, err)
	}
	if w := written.Load(); w == n {
		t.Fatalf("all %d requests written", n)
	}
	// Now read: every request is answered, once.
	sc := bufio.NewScanner(outR)
	seen := map[string]bool{}
	for len(seen) < n && sc.Scan() {
		var resp struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &resp); err != nil || resp.Result == nil || seen[string(resp.ID)] {
			t.Fatalf("reply %s (%v)", sc.Bytes(), err)
		}
		seen[string(resp.ID)] = true
	}
	if len(seen) != n {
		t.Fatalf("%d of %d answered: %v", len(seen), n, sc.Err())
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
}

// The requests in flight are bounded in bytes as well as in number: a
// client cannot make a session hold MaxInFlight requests of the largest
// message size. Here two 1 KiB requests fill a 2.5 KiB budget, and the
// third is not run (the read loop waits) until one of them is done.
func TestInFlightBytesAreBounded(t *testing.T) {
	srv := NewServer(&Implementation{Name: "s", Version: "1"}, &ServerOptions{MaxInFlightBytes: 2500})
	started := make(chan string, 3)
	release := make(chan struct{})
	AddTool(srv, &Tool{Name: "hold"}, func(ctx context.Context, _ *CallToolRequest, in struct {
		Pad string `json:"pad"`
		N   string `json:"n"`
	}) (*CallToolResult, any, error) {
		started <- in.N
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &CallToolResult{}, nil, nil
	})
	stalled := make(chan struct{}, 1)
	hook := func(*ServerSession) {
		select {
		case stalled <- struct{}{}:
		default:
		}
	}
	testHookAdmitWait.Store(&hook)
	t.Cleanup(func() { testHookAdmitWait.Store(nil) })

	pad := make([]byte, 1000)
	for i := range pad {
		pad[i] = 'x'
	}
	call := func(i int) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"tools/call","params":{"name":"hold","arguments":{"pad":"` + string(pad) + `","n":"` + strconv.Itoa(i) + `"}}}`)
	}
	f := &floodFramer{
		pre: [][]byte{
			[]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`),
			[]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		},
		n:       3,
		req:     func(i int) []byte { return call(i + 1) },
		allRead: make(chan struct{}),
		gate:    make(chan struct{}),
		out:     make(chan []byte, 16),
		done:    make(chan struct{}),
	}
	close(f.gate)
	ss := srv.Connect(transport.NewStream(f, nil))
	t.Cleanup(func() {
		ss.Close()
		<-ss.Done()
		ss.awaitHandlers(context.Background(), 5*time.Second)
	})
	got := map[string]bool{<-started: true, <-started: true}
	select {
	case <-stalled:
	case n := <-started:
		t.Fatalf("request %s ran with %v holding the whole byte budget", n, got)
	}
	select {
	case n := <-started:
		t.Fatalf("request %s ran with %v holding the whole byte budget", n, got)
	default:
	}
	release <- struct{}{} // let one finish
	n := <-started
	if got[n] {
		t.Fatalf("request %s started twice", n)
	}
	close(release)
}

// The byte bound counts a request's id and method as well as its params:
// a client could otherwise send ids or method names of the message size
// with empty params, and have the replies (which repeat them) held while
// it does not read.
func TestInFlightBytesCountIDAndMethod(t *testing.T) {
	srv := NewServer(&Implementation{Name: "s", Version: "1"}, &ServerOptions{MaxInFlightBytes: 2500})
	long := make([]byte, 1200)
	for i := range long {
		long[i] = 'x'
	}
	for _, shape := range []string{"id", "method"} {
		t.Run(shape, func(t *testing.T) {
			stalled := make(chan struct{}, 1)
			hook := func(*ServerSession) {
				select {
				case stalled <- struct{}{}:
				default:
				}
			}
			testHookAdmitWait.Store(&hook)
			t.Cleanup(func() { testHookAdmitWait.Store(nil) })
			f := &floodFramer{
				n: 50,
				req: func(i int) []byte {
					if shape == "id" {
						return []byte(`{"jsonrpc":"2.0","id":"` + string(long) + strconv.Itoa(i) + `","method":"nope"}`)
					}
					return []byte(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"` + string(long) + `"}`)
				},
				allRead: make(chan struct{}),
				gate:    make(chan struct{}), // replies are never taken
				out:     make(chan []byte, 64),
				done:    make(chan struct{}),
			}
			ss := srv.Connect(transport.NewStream(f, nil))
			t.Cleanup(func() {
				ss.Close()
				<-ss.Done()
				ss.awaitHandlers(context.Background(), 5*time.Second)
			})
			select {
			case <-stalled:
			case <-f.allRead:
				t.Fatalf("the server read all 50 requests with %d-byte %ss and no reply taken, with a budget of 2500 bytes", len(long), shape)
			}
		})
	}
}

// An unknown method's name is repeated in the error cut short, so that a
// reply is not as large as the request that asked for it.
func TestUnknownMethodNameCut(t *testing.T) {
	long := strings.Repeat("é", 1000)
	if got := methodText(long); len(got) > 140 || !strings.HasSuffix(got, "…") || !utf8.ValidString(got) {
		t.Errorf("methodText kept %d bytes: %q", len(got), got)
	}
	if got := methodText("tools/lisst"); got != "tools/lisst" {
		t.Errorf("a short name changed: %q", got)
	}
}
