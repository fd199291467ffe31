package client

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// Defaults of the bounds on the server's requests to the client.
const (
	// DefaultMaxServerRequests is Options.MaxServerRequests when unset.
	DefaultMaxServerRequests = 8
	// DefaultMaxQueuedServerRequests is Options.MaxQueuedServerRequests
	// when unset.
	DefaultMaxQueuedServerRequests = 64
)

// CodeBusy is the JSON-RPC error code the client answers a server's
// request with when as many are in progress and queued as it allows.
const CodeBusy = -32000

// serverRequests serves the server's requests to the client (ping,
// sampling, elicitation, roots, and the methods it does not know) on a
// bounded pool: at most max run at once, at most queued more wait, and the
// rest are refused at once. The read loop, which must not block, hands
// them over; a goroutine per request would let a server that floods the
// client grow it without bound.
//
// Workers start when there is work and no idle worker, and end when the
// queue is empty: an idle client holds none.
type serverRequests struct {
	max, queued int

	mu      sync.Mutex
	queue   []func()
	workers int

	refused atomic.Int64 // for the log, which a flood must not flood
}

func newServerRequests(max, queued int) *serverRequests {
	if max <= 0 {
		max = DefaultMaxServerRequests
	}
	if queued <= 0 {
		queued = DefaultMaxQueuedServerRequests
	}
	return &serverRequests{max: max, queued: queued}
}

// submit queues f, or reports false when the pool is full.
func (p *serverRequests) submit(f func()) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.queue) >= p.queued {
		return false
	}
	p.queue = append(p.queue, f)
	if p.workers < p.max {
		p.workers++
		go p.work()
	}
	return true
}

func (p *serverRequests) work() {
	for {
		p.mu.Lock()
		if len(p.queue) == 0 {
			p.workers--
			p.mu.Unlock()
			return
		}
		f := p.queue[0]
		p.queue[0] = nil
		p.queue = p.queue[1:]
		if len(p.queue) == 0 {
			p.queue = nil // do not keep a backing array that only grew
		}
		p.mu.Unlock()
		f()
	}
}

// errCancelledByServer is the cause of a served request's context when
// the server cancelled the request (notifications/cancelled).
var errCancelledByServer = errors.New("client: the server cancelled its request")

// serve runs the answer to the server's request r on the pool, or refuses
// r with CodeBusy when the pool is full. The refusal is written on the
// read loop; a server that floods the client without reading the answers
// then stalls that write, which the write timeout bounds.
//
// The request can be cancelled by the server (notifications/cancelled,
// see cancelServed) until it is answered: its context then ends, it gets
// no answer, as MCP asks, and, if it is still waiting for its turn, it is
// not run at all. Without it, a question the server had given up on kept
// the user's prompt (or the model's sampling) going, and one of the pool's
// places held, until the user answered.
func (c *Client) serve(ctx context.Context, conn *transport.Conn, r *transport.Request, answer func(context.Context) (any, error)) {
	rctx, cancel := context.WithCancelCause(ctx)
	key := r.ID.Key()
	c.mu.Lock()
	_, dup := c.served[key] // the stream refuses ids in flight; just in case
	if !dup {
		c.served[key] = cancel
	}
	c.mu.Unlock()
	// Unregistered before the answer goes: once it has, the server may
	// use the id again, for a request that must be cancellable.
	unregister := func() {
		if !dup {
			c.mu.Lock()
			delete(c.served, key)
			c.mu.Unlock()
		}
	}
	job := func() {
		defer cancel(nil)
		if context.Cause(rctx) == errCancelledByServer {
			unregister()
			conn.Release(r) // cancelled before its turn
			return
		}
		res, err := answer(rctx)
		unregister()
		switch {
		case context.Cause(rctx) == errCancelledByServer:
			conn.Release(r)
		case err != nil:
			e, ok := err.(*mcp.Error)
			if !ok {
				e = &mcp.Error{Code: mcp.CodeInternalError, Message: err.Error()}
			}
			_ = conn.ReplyError(rctx, r, e)
		default:
			_ = conn.Reply(rctx, r, res)
		}
	}
	if c.pool.submit(job) {
		return
	}
	unregister()
	cancel(nil)                                   // the refusal is written under ctx, not rctx
	if n := c.pool.refused.Add(1); n&(n-1) == 0 { // the 1st, 2nd, 4th, 8th...
		c.log.Warn("mcp client: refused requests from the server: too many in progress", "method", r.Method, "refused", n, "limit", c.pool.max+c.pool.queued)
	}
	_ = conn.ReplyError(ctx, r, &mcp.Error{Code: CodeBusy, Message: "client busy: too many requests from the server in progress"})
}

// cancelServed ends the server's request that notifications/cancelled
// names, if it is being served or waits for its turn.
func (c *Client) cancelServed(params json.RawMessage) {
	var p mcp.CancelledParams
	if json.Unmarshal(params, &p) != nil {
		return
	}
	id, err := transport.ParseID(p.RequestID)
	if err != nil {
		return
	}
	c.mu.Lock()
	cancel := c.served[id.Key()]
	c.mu.Unlock()
	if cancel != nil {
		cancel(errCancelledByServer)
	}
}
