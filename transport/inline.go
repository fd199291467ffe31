package transport

import (
	"encoding/json"
	"sync/atomic"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/winbridge/winbridge/internal/wirenames"
)

// A direct request is one the caller read itself and whose response it
// carries back itself, as HTTP pairs each POST with its answer. It skips
// the Stream and jsonrpc2 entirely: no read loop, no stream-local id, no
// payload ticket; its response is encoded here and handed to the caller.
// Only the inbound half takes this path: the pending calls of the other
// direction (a server's own requests to its client) stay with jsonrpc2,
// and their responses still go through the Stream.

// directSink is where the response to a direct request goes.
type directSink struct {
	respond func(msg []byte)
	done    atomic.Bool // answered or released: later answers are dropped
}

// DirectRequest decodes frame, one JSON-RPC message that the caller read
// itself, validating it as a Stream does. For a request or notification
// it returns the Request, with ok true; Conn.Reply, ReplyError and
// Release of that request hand its encoded response (the peer's id byte
// for byte) to respond instead of writing it to the stream, at most once.
// A malformed message is answered through respond as a Stream would
// answer it (or dropped when it cannot be answered), and DirectRequest
// returns nil, true. Responses and batches are not taken: it returns
// nil, false, and the caller hands them to the stream, where jsonrpc2
// owns the pending calls they answer.
//
// The request's Params alias frame, which the caller must not change
// afterwards.
func DirectRequest(frame []byte, respond func(msg []byte)) (r *Request, ok bool) {
	if t := trimJSONSpace(frame); len(t) > 0 && t[0] == '[' {
		return nil, false
	}
	env, rej := decodeEnvelope(frame)
	if rej != nil {
		respond(appendErrorResponse(nil, rej.id, rej.code, rej.message))
		return nil, true
	}
	switch env.kind {
	case kindRequest, kindNotification:
	case kindResponse:
		return nil, false
	default:
		return nil, true // neither answered nor passed on, as by a Stream
	}
	method, valid := wirenames.Unquote(env.method)
	if !valid {
		respond(appendErrorResponse(nil, env.id, CodeInvalidRequest, "invalid request: member \"method\" is not a valid string"))
		return nil, true
	}
	r = &Request{Method: method, Params: env.params}
	if env.kind == kindRequest {
		r.ID = env.id
		r.direct = &directSink{respond: respond}
	}
	return r, true
}

// IsDirect reports whether r came from DirectRequest: its handler should
// answer it before returning, since the caller carries the response.
func (r *Request) IsDirect() bool { return r.direct != nil }

// result answers a direct request with an encoded result.
func (d *directSink) result(id ID, b json.RawMessage) {
	if !d.done.CompareAndSwap(false, true) {
		return
	}
	out := make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"result":}`)+len(id.raw)+len(b))
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id.raw...)
	out = append(out, `,"result":`...)
	out = append(out, b...)
	d.respond(append(out, '}'))
}

// error answers a direct request with an error, encoded as jsonrpc2
// encodes the errors of the Stream's path.
func (d *directSink) error(id ID, e *Error) {
	if !d.done.CompareAndSwap(false, true) {
		return
	}
	je := &jsonrpc2.Error{Code: e.Code, Message: e.Message}
	if len(e.Data) > 0 {
		data := json.RawMessage(e.Data)
		je.Data = &data
	}
	obj, err := json.Marshal(je)
	if err != nil {
		// Data that is not valid JSON: the error still goes out, without it.
		je.Data = nil
		obj, _ = json.Marshal(je)
	}
	out := make([]byte, 0, len(`{"jsonrpc":"2.0","id":,"error":}`)+len(id.raw)+len(obj))
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id.raw...)
	out = append(out, `,"error":`...)
	out = append(out, obj...)
	d.respond(append(out, '}'))
}

// release gives up on answering a direct request.
func (d *directSink) release() { d.done.Store(true) }
