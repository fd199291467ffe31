package transport

import (
	"context"
	"errors"
	"fmt"

	"github.com/sourcegraph/jsonrpc2"
)

// A Framer carries whole messages over some medium, one per call.
//
// ReadFrame returns the next message without its framing. The returned
// slice may be overwritten by the next ReadFrame. At the end of input it
// returns io.EOF; for a message longer than the framer's limit it returns a
// *TooLargeError and stays usable.
//
// WriteFrame writes one message; callers never call it concurrently, and the
// message never contains a raw newline. Close releases the medium and
// unblocks a pending ReadFrame.
type Framer interface {
	ReadFrame() ([]byte, error)
	WriteFrame(msg []byte) error
	Close() error
}

// A RelatedFramer is a Framer that knows, of some frames it reads, with
// which of its own side's requests they arrived. Streamable HTTP carries
// the requests a server makes about a call (sampling, elicitation, roots)
// on that call's response stream, so the HTTP client framer can say whose
// call a request is about; a plain stream cannot.
type RelatedFramer interface {
	Framer
	// ReadFrameRelated is ReadFrame, with the context of the request
	// the frame arrived with (the one its caller made it with), or nil.
	ReadFrameRelated() (msg []byte, related context.Context, err error)
}

// A RelatedWriter is a Framer that can carry a message about one of the
// peer's requests with that request: Streamable HTTP sends what a server
// asks or logs during a request on that request's response stream, so
// that the client knows whose call it is about. The Stream calls
// WriteFrameRelated instead of WriteFrame for a request or notification
// sent under a context of Conn.WithRequest.
type RelatedWriter interface {
	Framer
	WriteFrameRelated(msg []byte, about ID) error
}

type requestKey struct{}

// requestMark is what WithRequest puts in a context: the request, and the
// connection it came on.
type requestMark struct {
	c  *Conn
	id ID
}

// WithRequest returns ctx marking what c sends under it, requests (with
// params or without) and notifications with params, as about the peer's
// request of id, for a RelatedWriter. A Conn's Handler gets such a context
// for every request already, where the framer is a RelatedWriter; code
// that answers requests taken by DirectRequest marks what it sends about
// one itself (mcp's ServerRequest does).
//
// The mark is c's alone: another Conn sending under ctx ignores it, since
// the peer's request ids on one connection name nothing on another (a
// handler that broadcasts to every session under its own context must
// not have its message filed with another session's request of the same
// id).
func (c *Conn) WithRequest(ctx context.Context, id ID) context.Context {
	return context.WithValue(ctx, requestKey{}, requestMark{c, id})
}

// requestOf returns the request of c's peer ctx is about (WithRequest),
// or nil.
func (c *Conn) requestOf(ctx context.Context) *ID {
	if m, ok := ctx.Value(requestKey{}).(requestMark); ok && m.c == c && !m.id.IsZero() {
		return &m.id
	}
	return nil
}

type relatedKey struct{}

// RelatedCall returns, inside a Handler handling a request of the peer,
// the context of the call this side made that the request arrived with
// (RelatedFramer), or nil when the transport cannot tell. A client that
// serves several users over one connection answers with it for the user
// whose call the peer is asking about, instead of guessing.
func RelatedCall(ctx context.Context) context.Context {
	c, _ := ctx.Value(relatedKey{}).(context.Context)
	return c
}

// DefaultMaxMessageSize is the largest message a framer accepts unless told
// otherwise: 32 MiB, room for an 8 MiB payload after JSON escaping doubles
// it, with margin.
const DefaultMaxMessageSize = 32 << 20

// TooLargeError reports a message longer than the framer's limit. The
// message was discarded; Head holds its first bytes, from which the stream
// recovers the request id where it can so the peer's call fails at once
// instead of timing out.
type TooLargeError struct {
	Size  int64  // the message's length as read (for a line: without its LF)
	Limit int    // the framer's limit
	Head  []byte // the message's first bytes, at most 4 KiB
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("message of %d bytes exceeds the %d-byte limit", e.Size, e.Limit)
}

// ErrClosed is returned for operations on a closed stream or connection. It
// is jsonrpc2's own sentinel, so errors.Is works whichever layer noticed.
var ErrClosed = jsonrpc2.ErrClosed

var errClosedFramer = errors.New("transport: framer closed")
