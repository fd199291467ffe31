package transport

import (
	"context"
	"encoding/json"
	"io"
	"sync"
	"testing"
	"time"
)

// relatedFramers wraps a chanFramer as a RelatedWriter that records what
// each frame was about, and a RelatedFramer that says every frame it reads
// came with the context related.
type relatedFramers struct {
	*chanFramer
	related context.Context

	mu    sync.Mutex
	about map[string]string // method: the id it was about, "" when written plainly
}

func (f *relatedFramers) note(msg []byte, about string) {
	var m struct{ Method string }
	_ = json.Unmarshal(msg, &m)
	f.mu.Lock()
	f.about[m.Method] = about
	f.mu.Unlock()
}

func (f *relatedFramers) WriteFrame(msg []byte) error {
	f.note(msg, "")
	return f.chanFramer.WriteFrame(msg)
}

func (f *relatedFramers) WriteFrameRelated(msg []byte, about ID) error {
	f.note(msg, about.String())
	return f.chanFramer.WriteFrame(msg)
}

func (f *relatedFramers) ReadFrameRelated() ([]byte, context.Context, error) {
	msg, err := f.chanFramer.ReadFrame()
	return msg, f.related, err
}

type markKey struct{}

// What a handler sends under its request's context is written as about
// that request, on a RelatedWriter; what is sent otherwise, plainly. What a
// RelatedFramer reads comes to the handler with its related call.
func TestRelatedFraming(t *testing.T) {
	a, b := Pipe(nil)
	mark := context.WithValue(context.Background(), markKey{}, "the call")
	srvF := &relatedFramers{chanFramer: a.f.(*chanFramer), about: map[string]string{}}
	cliF := &relatedFramers{chanFramer: b.f.(*chanFramer), related: mark, about: map[string]string{}}
	srv := NewConn(NewStream(srvF, nil), HandlerFunc(func(ctx context.Context, c *Conn, r *Request) {
		if r.IsNotification() {
			return
		}
		go func() {
			_ = c.Notify(ctx, "note", map[string]int{"n": 1})
			_ = c.Notify(ctx, "bare", nil) // no params: nothing carries what it is about
			_ = c.Call(ctx, "question", map[string]int{"q": 1}, nil)
			_ = c.Notify(context.Background(), "unrelated", map[string]int{"n": 2})
			_ = c.Reply(ctx, r, map[string]string{"ok": "yes"})
		}()
	}), nil)
	defer srv.Close()
	seen := make(chan any, 1)
	cli := NewConn(NewStream(cliF, nil), HandlerFunc(func(ctx context.Context, c *Conn, r *Request) {
		if r.Method == "question" {
			var v any
			if rc := RelatedCall(ctx); rc != nil {
				v = rc.Value(markKey{})
			}
			seen <- v
			_ = c.Reply(ctx, r, struct{}{})
		}
	}), nil)
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cli.Call(ctx, "ask", map[string]int{"a": 1}, nil); err != nil {
		t.Fatal(err)
	}
	if v := <-seen; v != "the call" {
		t.Errorf("the client's handler saw related call %v", v)
	}
	srvF.mu.Lock()
	defer srvF.mu.Unlock()
	got := srvF.about
	for _, m := range []string{"note", "bare", "question", "unrelated"} {
		if _, ok := got[m]; !ok {
			t.Fatalf("%s was not written: %v", m, got)
		}
	}
	if got["note"] == "" || got["question"] != got["note"] {
		t.Errorf("note about %q, question about %q: want both about the client's request", got["note"], got["question"])
	}
	if got["bare"] != "" || got["unrelated"] != "" {
		t.Errorf("bare about %q, unrelated about %q: want both written plainly", got["bare"], got["unrelated"])
	}
}

// A request without params (roots/list) sent under a request's context is
// as much about that request as one with params: no payload ticket
// carries what it is about, so its id must.
func TestRelatedCallWithoutParams(t *testing.T) {
	a, b := Pipe(nil)
	srvF := &relatedFramers{chanFramer: a.f.(*chanFramer), about: map[string]string{}}
	cliF := &relatedFramers{chanFramer: b.f.(*chanFramer), about: map[string]string{}}
	srv := NewConn(NewStream(srvF, nil), HandlerFunc(func(ctx context.Context, c *Conn, r *Request) {
		if r.IsNotification() {
			return
		}
		go func() {
			if err := c.Call(ctx, "roots/list", nil, nil); err != nil {
				_ = c.ReplyError(ctx, r, &Error{Code: CodeInternalError, Message: err.Error()})
				return
			}
			_ = c.Reply(ctx, r, struct{}{})
		}()
	}), nil)
	defer srv.Close()
	cli := NewConn(NewStream(cliF, nil), HandlerFunc(func(ctx context.Context, c *Conn, r *Request) {
		if !r.IsNotification() {
			_ = c.Reply(ctx, r, struct{}{})
		}
	}), nil)
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	call := cli.Go(ctx, "ask", map[string]int{"a": 1})
	if err := call.Result(nil); err != nil {
		t.Fatal(err)
	}
	srvF.mu.Lock()
	defer srvF.mu.Unlock()
	if got, want := srvF.about["roots/list"], call.ID().String(); got != want {
		t.Errorf("roots/list was written about %q; want about the client's request %s", got, want)
	}
	srv.s.mu.Lock()
	defer srv.s.mu.Unlock()
	if n := len(srv.s.about); n != 0 {
		t.Errorf("the stream still holds %d entries of what messages are about", n)
	}
}

// relatedRT is a RoundTripper that is also a RelatedFramer, as the HTTP
// client framer is.
type relatedRT struct {
	*fakeRT
	related context.Context
}

func (f *relatedRT) ReadFrameRelated() ([]byte, context.Context, error) {
	msg, err := f.ReadFrame()
	return msg, f.related, err
}

// TapFramer keeps what a framer says of the calls its frames came with,
// as it keeps RoundTrip: the framer it is documented for, the HTTP
// client's, says both.
func TestTapFramerKeepsRelated(t *testing.T) {
	mark := context.WithValue(context.Background(), markKey{}, "the call")
	q := &relatedFramers{chanFramer: &chanFramer{in: make(chan []byte, 1), done: make(chan struct{})}, related: mark}
	q.chanFramer.in <- []byte(`{"jsonrpc":"2.0","id":1,"method":"x"}`)
	tf := TapFramer(q, &EchoOptions{Writer: io.Discard})
	rf, ok := tf.(RelatedFramer)
	if !ok {
		t.Fatal("TapFramer hides ReadFrameRelated")
	}
	if _, rc, err := rf.ReadFrameRelated(); err != nil || rc != mark {
		t.Errorf("ReadFrameRelated through the tap: %v, %v", rc, err)
	}
	rt := &relatedRT{fakeRT: newFakeRT(echoID(`"result":1`))}
	defer rt.Close()
	tf = TapFramer(rt, nil)
	if _, ok := tf.(RoundTripper); !ok {
		t.Error("TapFramer hides RoundTrip of a framer that is also a RelatedFramer")
	}
	if _, ok := tf.(RelatedFramer); !ok {
		t.Error("TapFramer hides ReadFrameRelated of a RoundTripper")
	}
	if _, ok := TapFramer(NewLineFramer(readOnly{}, 0), nil).(RelatedFramer); ok {
		t.Error("TapFramer of a line framer claims ReadFrameRelated")
	}
}

// A request's mark is its connection's: the peer's request ids of one
// connection name nothing on another. A handler that sends on a second
// connection under its own request's context (a broadcast to every
// session) must not have that message filed under whichever request of
// the second connection has the same id.
func TestRequestMarkIsPerConnection(t *testing.T) {
	a1, b1 := Pipe(nil)
	a2, b2 := Pipe(nil)
	srv2F := &relatedFramers{chanFramer: a2.f.(*chanFramer), about: map[string]string{}}
	srv2 := NewConn(NewStream(srv2F, nil), HandlerFunc(func(ctx context.Context, c *Conn, r *Request) {}), nil)
	defer srv2.Close()
	cli2 := NewConn(b2, HandlerFunc(func(ctx context.Context, c *Conn, r *Request) {}), nil)
	defer cli2.Close()

	srv1F := &relatedFramers{chanFramer: a1.f.(*chanFramer), about: map[string]string{}}
	srv1 := NewConn(NewStream(srv1F, nil), HandlerFunc(func(ctx context.Context, c *Conn, r *Request) {
		if r.IsNotification() {
			return
		}
		go func() {
			_ = srv2.Notify(ctx, "broadcast", map[string]int{"n": 1})
			_ = c.Notify(ctx, "own", map[string]int{"n": 2})
			_ = c.Reply(ctx, r, struct{}{})
		}()
	}), nil)
	defer srv1.Close()
	cli1 := NewConn(b1, HandlerFunc(func(ctx context.Context, c *Conn, r *Request) {}), nil)
	defer cli1.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cli1.Call(ctx, "ask", map[string]int{"a": 1}, nil); err != nil {
		t.Fatal(err)
	}
	srv2F.mu.Lock()
	broadcast, ok := srv2F.about["broadcast"]
	srv2F.mu.Unlock()
	srv1F.mu.Lock()
	own := srv1F.about["own"]
	srv1F.mu.Unlock()
	if !ok {
		t.Fatal("the broadcast was not written")
	}
	if broadcast != "" {
		t.Errorf("the second connection wrote the broadcast as about its request %s; want it written plainly", broadcast)
	}
	if own == "" {
		t.Error("the handler's own notification was written plainly; want it about its request")
	}
}
