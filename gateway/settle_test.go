package gateway

import (
	"context"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/transport"
)

// TestRelistWithoutConnection: a child's ready hook runs, and asks for a
// relist, before Launch returns and the upstream holds the process. That
// relist reaches no server and lists nothing, so it must not mark the
// upstream listed: Start would return before its tools are served.
func TestRelistWithoutConnection(t *testing.T) {
	g, err := New(&Options{Config: hostileConfig(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	u := g.upstream("hostile")
	u.setState(StateReady, nil) // as the ready hook does; u.proc is still nil
	u.relist()
	if isListed(u) {
		t.Fatal("marked listed by a relist that reached no server")
	}
}

// TestKillSwitchToggled: the run loop of a disabled server, ending after
// the server is enabled again, must not mark the new run failed.
func TestKillSwitchToggled(t *testing.T) {
	f := start(t, &Options{Servers: inproc()}, nil)
	for i := range 30 {
		if err := f.g.SetServerEnabled("up", false); err != nil {
			t.Fatal(err)
		}
		if err := f.g.SetServerEnabled("up", true); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := f.g.waitSettled(ctx)
		cancel()
		if err != nil {
			t.Fatalf("toggle %d: %v", i, err)
		}
	}
}

// A start that connects after its run loop was closed (the kill switch
// thrown, the server removed) closes its connection itself: close took
// the one it knew, and the new one would leak, or be served as ready.
func TestKeepAfterClose(t *testing.T) {
	f := start(t, &Options{Servers: inproc()}, nil)
	u := f.g.upstream("up")
	a, b := transport.Pipe(nil)
	ss := upstreamServer().Connect(a)
	defer ss.Close()
	c, err := client.Connect(context.Background(), b, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if err := u.keep(ended, c, nil); err == nil {
		t.Fatal("keep took a connection for a closed run loop")
	}
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the connection of a closed run loop was left open")
	}
	u.mu.Lock()
	kept := u.c == c
	u.mu.Unlock()
	if kept {
		t.Error("the upstream holds the connection of a closed run loop")
	}
}

// A start of a closed run loop sets no state: the upstream's state is the
// next loop's, which may be ready already.
func TestStartOfClosedLoopSetsNoState(t *testing.T) {
	f := start(t, &Options{Servers: inproc()}, nil)
	u := f.g.upstream("up")
	if s := u.State(); s != StateReady {
		t.Fatalf("state %v before the test, want ready", s)
	}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := u.start(ended); err == nil {
		t.Fatal("a closed loop's start started the upstream")
	}
	if s := u.State(); s != StateReady {
		t.Errorf("a closed loop's start set the state to %v; want it left ready", s)
	}
}

// isListed reads u.listed under its lock.
func isListed(u *upstream) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.listed
}
