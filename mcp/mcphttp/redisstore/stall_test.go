package redisstore

import (
	"context"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp/mcphttp/redisstore/internal/redistest"
)

// stallProxy is a TCP proxy to a Redis that, once stalled, forwards
// nothing more to it until the test ends: a Redis that stopped answering
// with its connections still open (a partition, a paused host).
type stallProxy struct {
	addr    string
	stalled chan struct{}
}

func newStallProxy(t *testing.T, socket string) *stallProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &stallProxy{addr: l.Addr().String(), stalled: make(chan struct{})}
	released := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(func() {
		close(released)
		l.Close()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			r, err := net.Dial("unix", socket)
			if err != nil {
				c.Close()
				continue
			}
			wg.Add(3)
			go func() {
				defer wg.Done()
				<-released
				c.Close()
				r.Close()
			}()
			go func() {
				defer wg.Done()
				_, _ = io.Copy(r, gatedReader{c, p.stalled, released})
			}()
			go func() {
				defer wg.Done()
				_, _ = io.Copy(c, r)
			}()
		}
	}()
	return p
}

// gatedReader holds what it read once stalled is closed, until released.
type gatedReader struct {
	r                 io.Reader
	stalled, released chan struct{}
}

func (g gatedReader) Read(b []byte) (int, error) {
	n, err := g.r.Read(b)
	select {
	case <-g.stalled:
		<-g.released
		return 0, io.EOF
	default:
	}
	return n, err
}

// A store call on a Redis that stopped answering returns by its
// context's deadline, with an error that says it timed out, not after
// go-redis's own read timeout: a request's deadline bounds it.
func TestRedisStalledCallKeepsItsDeadline(t *testing.T) {
	r := redistest.Start(t)
	p := newStallProxy(t, r.Socket)
	st := open(t, "redis://"+p.addr+"/0", nil)
	ctx := context.Background()
	if _, err := st.Sessions.Append(ctx, "s1", []byte(`{}`), time.Minute); err != nil {
		t.Fatal(err)
	}
	close(p.stalled)
	const deadline = 200 * time.Millisecond
	for name, call := range map[string]func(context.Context) error{
		"load": func(ctx context.Context) error { _, err := st.Sessions.Load(ctx, "s1", time.Minute); return err },
		"append": func(ctx context.Context) error {
			_, err := st.Sessions.Append(ctx, "s1", []byte(`{}`), time.Minute)
			return err
		},
		"replay": func(ctx context.Context) error { _, _, err := st.Events.Replay(ctx, "s1", "x", 0); return err },
	} {
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		start := time.Now()
		err := call(ctx)
		took := time.Since(start)
		cancel()
		if err == nil {
			t.Fatalf("%s on a stalled Redis succeeded", name)
		}
		// go-redis's read timeout is 5 s; the deadline is 200 ms.
		if took > 2*time.Second {
			t.Fatalf("%s on a stalled Redis took %v past its %v deadline: %v", name, took, deadline, err)
		}
	}
}
