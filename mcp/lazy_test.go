package mcp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/transport"
)

// A ConnectDirect session answers direct requests without starting its
// connection; the first notification starts it, once, and it carries the
// notification; Close ends the session either way.
func TestConnectDirectLazy(t *testing.T) {
	srv := NewServer(&Implementation{Name: "lazy", Version: "1"}, &ServerOptions{Logger: quietLogger()})
	var opened atomic.Int32
	peerCh := make(chan *transport.Stream, 1)
	ss := srv.ConnectDirect(func() *transport.Stream {
		opened.Add(1)
		a, b := transport.Pipe(nil)
		peerCh <- b
		return a
	})
	var got []string
	if !ss.ServeDirect(context.Background(), []byte(`{"jsonrpc":"2.0","id":"x","method":"no/such"}`), func(b []byte) { got = append(got, string(b)) }) {
		t.Fatal("request not taken")
	}
	if len(got) != 1 || !strings.Contains(got[0], `"id":"x"`) || !strings.Contains(got[0], `-32601`) {
		t.Fatalf("answer %q", got)
	}
	if n := opened.Load(); n != 0 {
		t.Fatalf("a direct request opened the connection %d times", n)
	}
	// A response is not taken: it needs the connection's pending calls.
	if ss.ServeDirect(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), func([]byte) {}) {
		t.Fatal("response taken")
	}

	peerRead := make(chan string, 1)
	go func() {
		if err := ss.connection().Notify(context.Background(), "notifications/x", map[string]int{"a": 1}); err != nil {
			peerRead <- "notify: " + err.Error()
		}
	}()
	peer := <-peerCh
	var msg struct {
		Method string `json:"method"`
	}
	if err := peer.ReadObject(&msg); err != nil || msg.Method != "notifications/x" {
		t.Fatalf("peer read %+v, %v", msg, err)
	}
	_ = ss.connection()
	if n := opened.Load(); n != 1 {
		t.Fatalf("opened %d times", n)
	}
	if err := ss.Close(); err != nil {
		t.Fatal(err)
	}
	waitDone(t, ss)
	select {
	case e := <-peerRead:
		t.Fatal(e)
	default:
	}
	if n := len(srv.Sessions()); n != 0 {
		t.Fatalf("%d sessions after Close", n)
	}
}

// A ConnectDirect session closed before its connection started ends at
// once; sending afterwards starts a connection that is closed already, so
// the send fails as on any closed session.
func TestConnectDirectClosedFirst(t *testing.T) {
	srv := NewServer(&Implementation{Name: "lazy", Version: "1"}, &ServerOptions{Logger: quietLogger()})
	var opened atomic.Int32
	ss := srv.ConnectDirect(func() *transport.Stream {
		opened.Add(1)
		a, _ := transport.Pipe(nil)
		return a
	})
	if err := ss.Close(); err != nil {
		t.Fatal(err)
	}
	waitDone(t, ss)
	if n := opened.Load(); n != 0 {
		t.Fatalf("Close opened the connection %d times", n)
	}
	if n := len(srv.Sessions()); n != 0 {
		t.Fatalf("%d sessions after Close", n)
	}
	if err := ss.connection().Notify(context.Background(), "notifications/x", nil); !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("notify after Close: %v", err)
	}
	_ = ss.Close() // again: no effect
	// A request handed over after the end is not run.
	var got []string
	ss.ServeDirect(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), func(b []byte) { got = append(got, string(b)) })
	if len(got) != 0 {
		t.Fatalf("a request after the end was answered: %q", got)
	}
}

func waitDone(t *testing.T, ss *ServerSession) {
	t.Helper()
	select {
	case <-ss.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the session did not end")
	}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
