package transport

import (
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
