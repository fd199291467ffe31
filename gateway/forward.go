package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// What a stdio or HTTP upstream asks of the client (sampling,
// elicitation, roots) is asked of the downstream client of the call in
// progress: an upstream asks during a tools/call, and the user who made
// the call is the one to answer. One connection to the upstream serves
// every downstream session.
//
// Over HTTP the upstream sends its request on the response stream of the
// call it is about, and the client framer says which
// (transport.RelatedCall): the request goes to that call's client.
// (Upstreams are spoken to in the last legacy revision, so none asks
// through a 2026-07-28 call's result.) Over stdio,
// or on the upstream's GET stream, nothing says which call a request
// belongs to; it is forwarded only when every call in progress on that
// upstream comes from the same downstream session. With none, or with
// calls of several sessions, it is refused: guessing would let an upstream
// reach one user's model or screen through another's call. (In-process
// upstreams need none of this: their tools see the downstream request
// itself.)

// Bounds of the upstream's requests to the facade (client.Options): a
// few answered at once, a few more queued, the rest refused at once with
// client.CodeBusy. A downstream answer can take as long as a user does.
const (
	maxForwarded       = 4
	maxQueuedForwarded = 16
)

// CodeForwardRefused is the JSON-RPC error code with which the facade
// answers an upstream's request it does not forward.
const CodeForwardRefused = -32001

// pending is a tools/call in progress on an upstream.
type pending struct {
	ctx context.Context // the call's: the forwarded request ends with it
	req *mcp.CallToolRequest
	set *settings
}

type pendingKey struct{}

// begin records a call in progress on u. The call to the upstream is to
// be made with the returned context, which names it (target); the
// returned func ends it.
func (u *upstream) begin(ctx context.Context, req *mcp.CallToolRequest, set *settings) (context.Context, func()) {
	p := &pending{ctx: ctx, req: req, set: set}
	u.mu.Lock()
	if u.pending == nil {
		u.pending = map[*pending]struct{}{}
	}
	u.pending[p] = struct{}{}
	u.mu.Unlock()
	return context.WithValue(ctx, pendingKey{}, p), func() {
		u.mu.Lock()
		delete(u.pending, p)
		u.mu.Unlock()
	}
}

// target returns the call a request from the upstream is forwarded to.
// ctx is the request's handler context: over HTTP it names the call whose
// stream the request came on.
func (u *upstream) target(ctx context.Context, method string) (*pending, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if rc := transport.RelatedCall(ctx); rc != nil {
		p, _ := rc.Value(pendingKey{}).(*pending)
		if _, ok := u.pending[p]; !ok || p == nil {
			// The call ended, or is not one of this upstream's.
			return nil, refuseForward("%s: the call of server %q that the request came with is not in progress", method, u.name)
		}
		return p, nil
	}
	var found *pending
	for p := range u.pending {
		switch {
		case found == nil:
			found = p
		case found.req.Session != p.req.Session:
			return nil, refuseForward("%s: calls of several clients are in progress on server %q, and the request does not say whose it is", method, u.name)
		}
	}
	if found == nil {
		return nil, refuseForward("%s: the gateway forwards requests to the client only during a tools/call of server %q", method, u.name)
	}
	return found, nil
}

func refuseForward(format string, args ...any) error {
	return &mcp.Error{Code: CodeForwardRefused, Message: fmt.Sprintf(format, args...)}
}

// allowed applies the policy of the call's surface (servers[name]).
func (u *upstream) allowed(p *pending, what string) error {
	r := p.set.pol.Servers[u.name]
	if r == nil {
		return nil
	}
	var rule string
	switch what {
	case "sampling":
		rule = r.Sampling
	case "elicitation":
		rule = r.Elicitation
	case "roots":
		rule = r.Roots
	}
	if rule == "deny" {
		return refuseForward("the gateway's policy does not let server %q use %s", u.name, what)
	}
	return nil
}

// fitsForward refuses an upstream's sampling or elicitation request
// whose params, as forwarded, pass limits.maxResultBytes of the call's
// policy: they go into the user's model or onto their screen as surely as
// a result, and cutting a question changes what is asked.
func fitsForward(method string, params []byte, p *pending) error {
	if n, limit := len(params), p.set.limits.MaxResultBytes; n > limit {
		return refuseForward("%s: the request is %d bytes, past the gateway's limits.maxResultBytes (%d)", method, n, limit)
	}
	return nil
}

// forward runs ask against the downstream call of p, ended by either the
// upstream's request or the call.
func forward[T any](ctx context.Context, u *upstream, method, what string, ask func(context.Context, *pending) (T, error)) (T, error) {
	var zero T
	p, err := u.target(ctx, method)
	if err != nil {
		return zero, err
	}
	if err := u.allowed(p, what); err != nil {
		return zero, err
	}
	if mcp.IsStateless(p.req.ProtocolVersion()) {
		// A 2026-07-28 client is asked through the call's result, which
		// the upstream call in progress cannot give.
		return zero, refuseForward("%s: the client of this call speaks %s and cannot be asked during a call", method, p.req.ProtocolVersion())
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(p.ctx, cancel)
	defer stop()
	res, err := ask(fctx, p)
	if errors.Is(err, mcp.ErrInputRequired) {
		return zero, refuseForward("%s: the client cannot be asked during this call", method)
	}
	return res, err
}

// forwarders sets the handlers that forward the upstream's requests, and
// the bounds on them. A capability the policy in force denies to this
// server is not declared.
func (u *upstream) forwarders(o *client.Options) {
	o.MaxServerRequests, o.MaxQueuedServerRequests = maxForwarded, maxQueuedForwarded
	r := u.g.main.set.Load().pol.Servers[u.name]
	if r == nil {
		r = &ServerRule{}
	}
	// Sampling and elicitation requests are passed on as the upstream
	// encoded them, changed only where the facade must (sampling.go):
	// decoded, their numbers would be float64 (a tool_use block's input,
	// a form's defaults and bounds), and so would the client's answers.
	if r.Sampling != "deny" {
		o.OnSamplingRaw = func(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
			return forward(ctx, u, "sampling/createMessage", "sampling", func(ctx context.Context, c *pending) (json.RawMessage, error) {
				out, err := upstreamSampling(raw)
				if err != nil {
					return nil, refuseForward("sampling/createMessage: %v", err)
				}
				if err := fitsForward("sampling/createMessage", out, c); err != nil {
					return nil, err
				}
				return c.req.CreateMessageRaw(ctx, out)
			})
		}
	}
	if r.Elicitation != "deny" {
		o.OnElicitationRaw = func(ctx context.Context, raw json.RawMessage) (json.RawMessage, error) {
			return forward(ctx, u, "elicitation/create", "elicitation", func(ctx context.Context, c *pending) (json.RawMessage, error) {
				out := upstreamElicitation(raw)
				if err := fitsForward("elicitation/create", out, c); err != nil {
					return nil, err
				}
				return c.req.ElicitRaw(ctx, out)
			})
		}
	}
	if r.Roots != "deny" {
		o.OnRoots = func(ctx context.Context) (*mcp.ListRootsResult, error) {
			return forward(ctx, u, "roots/list", "roots", func(ctx context.Context, c *pending) (*mcp.ListRootsResult, error) {
				res, err := c.req.ListRoots(ctx)
				if err != nil || res == nil {
					return res, err
				}
				cp := *res
				cp.Roots = c.set.scope.narrowRoots(res.Roots) // roots.go
				return &cp, nil
			})
		}
	}
}
