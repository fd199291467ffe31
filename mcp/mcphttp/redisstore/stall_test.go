package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp/mcphttp/redisstore/internal/redistest"
)

// stallProxy is a TCP proxy to a Redis that, once stalled, forwards
// nothing more to it: a Redis that stopped answering with its
// connections still open (a partition, a paused host).
type stallProxy struct {
	addr    string
	stalled chan struct{}
}

func newStallProxy(t *testing.T, socket string) *stallProxy {
	t.Helper()
	p := &stallProxy{stalled: make(chan struct{})}
	p.addr = startRedisProxy(t, socket, func() (toRedis, toClient hook) {
		toRedis = func([]byte) verdict {
			select {
			case <-p.stalled:
				return drop
			default:
				return pass
			}
		}
		return toRedis, nil
	})
	return p
}

// A store call on a Redis that stopped answering returns by its
// context's deadline, with an error that says it timed out, not after
// go-redis's own read timeout: a request's deadline bounds it.
func TestRedisStalledCallKeepsItsDeadline(t *testing.T) {
	r := redistest.Start(t)
	p := newStallProxy(t, r.Socket)
	st := open(t, "redis://"+p.addr+"/0", nil)
	ctx := context.Background()
	if err := st.Sessions.Create(ctx, "s1", []byte(`{}`), time.Minute); err != nil {
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
