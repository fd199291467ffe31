package mcp

import (
	"context"

	"github.com/winbridge/winbridge/transport"
)

// ServeDirect runs one JSON-RPC request or notification that a transport
// read itself and whose response it carries back itself, as Streamable
// HTTP pairs each POST with its answer: on the caller's goroutine, without
// the hand-offs to the connection's read loop and a worker. It is the hook
// for such transports; a transport over a plain stream needs none.
//
// Everything else is as for a message read from the session's stream: the
// message is validated as the stream would (a request under an id in use
// by one in progress is refused with CodeInvalidRequest), a request takes an in-flight
// slot (ServerOptions.MaxInFlight, waiting for one as the read loop would,
// or refused with CodeServerBusy), tool calls take a MaxConcurrency slot,
// notifications/cancelled cancels it, a panic becomes an internal error,
// and the session's end cancels its context. Notifications take effect
// before ServeDirect returns.
//
// The response, if there is one, is handed to respond before ServeDirect
// returns, at most once, on the caller's goroutine: a request cancelled by
// the client, one not run because the session ended, and notifications get
// none. A malformed message is answered through respond as the stream
// would answer it. Requests the handler makes of the client meanwhile
// (sampling, elicitation, roots) and its notifications go out through the
// session's stream as ever, and the client's responses to them must come
// back through it too: ServeDirect takes no responses nor batches and
// reports false for them, handing nothing to respond.
//
// ctx is the handler's context; the session's end cancels it too.
func (ss *ServerSession) ServeDirect(ctx context.Context, msg []byte, respond func(resp []byte)) bool {
	r, ok := transport.DirectRequest(msg, respond)
	if !ok {
		return false
	}
	if r != nil {
		<-ss.connSet
		ss.handle(ctx, r)
	}
	return true
}
