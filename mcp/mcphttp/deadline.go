package mcphttp

import (
	"net/http"
	"sync"
	"time"

	"github.com/winbridge/winbridge/internal/delayq"
)

// deadlineWriter is the request's writer. It gives the request's body
// BodyTimeout to arrive (HandlerOptions.BodyTimeout) and each write to
// the client WriteTimeout to complete (HandlerOptions.WriteTimeout): a
// deadline per write rather than per response, since an SSE response
// lives as long as its session.
type deadlineWriter struct {
	http.ResponseWriter
	h       *Handler
	rc      *http.ResponseController
	timeout time.Duration // WriteTimeout, or 0 for none
	wrote   bool
	// whole: the answer went out in one writeWhole, its length declared,
	// and nothing after it. Once flushed, net/http writes nothing more for
	// it, and clears the write deadline itself as the response finishes.
	whole bool
	// body is a POST body's BodyTimeout, and flush a whole answer's
	// WriteTimeout, each kept by one of the Handler's queues (connWait).
	body, flush connWait
	// lift: BodyTimeout is a read deadline on the connection instead,
	// which readBody lifts once it has the body.
	lift bool
}

// newDeadlineWriter wraps w for r. A POST's body is given BodyTimeout by
// the Handler's queue (readBody ends that wait). Any other request, and a
// POST under an http.Server ReadTimeout, gets it as a read deadline on its
// connection instead, which replaces the server's (whose expiry, once the
// body is read, would cancel the request) and which readBody, or get once
// it streams, lifts.
func (h *Handler) newDeadlineWriter(w http.ResponseWriter, r *http.Request) *deadlineWriter {
	rc := http.NewResponseController(w)
	dw := &deadlineWriter{ResponseWriter: w, h: h, rc: rc, timeout: max(h.opts.WriteTimeout, 0)}
	dw.body.rc = rc
	dw.flush.rc, dw.flush.write = rc, true
	if r.Method == http.MethodPost && r.Body != nil && r.Body != http.NoBody && !readTimeout(r) {
		dw.body.start(h.bodyWaits)
	} else {
		_ = rc.SetReadDeadline(time.Now().Add(h.opts.BodyTimeout))
		dw.lift = true
	}
	return dw
}

// readTimeout reports whether r came through an http.Server with a
// ReadTimeout, which net/http sets as the connection's read deadline for
// the whole request.
func readTimeout(r *http.Request) bool {
	srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server)
	return ok && srv.ReadTimeout > 0
}

// WriteHeader starts the deadline too: a response with no body (202,
// 204) or one that flushes its header before its first event (SSE) is
// written under it, not under none.
func (w *deadlineWriter) WriteHeader(code int) {
	if w.timeout > 0 {
		_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	}
	w.wrote, w.whole = true, false
	w.ResponseWriter.WriteHeader(code)
}

func (w *deadlineWriter) Write(b []byte) (int, error) {
	if w.timeout > 0 {
		_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	}
	w.wrote, w.whole = true, false
	return w.ResponseWriter.Write(b)
}

// writeWhole writes a whole answer whose header declares its length
// (writeJSON) under one wait for WriteTimeout, kept by the Handler's
// queue rather than by the connection's deadline: what WriteHeader and
// Write do not send at once (all of a small answer) goes out in finish's
// Flush, which ends the wait. Each deadline set on the connection moves
// its runtime timer, and may wake the network poller.
func (w *deadlineWriter) writeWhole(status int, body []byte) {
	if w.timeout > 0 {
		w.flush.start(w.h.flushes)
	}
	w.wrote, w.whole = true, true
	w.ResponseWriter.WriteHeader(status)
	_, _ = w.ResponseWriter.Write(body)
}

// Unwrap lets http.ResponseController reach the underlying writer; a
// Flush after Write runs under the deadline Write set.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// bodyRead ends the body's BodyTimeout once readBody has all of it, and
// reports false if it fell due first: the body is then refused as late.
// Taking it as read is not safe, even though its reads succeeded: net/http
// starts a background read of the connection as it sees the body's end, and
// a deadline set in the past after that ends that read, which cancels the
// request's context, so that the request would run cancelled. (A deadline
// on the connection had no such window: net/http lifts it as it starts
// that read.)
func (w *deadlineWriter) bodyRead() bool {
	if w.lift {
		w.lift = false
		_ = w.rc.SetReadDeadline(time.Time{})
		return true
	}
	return !w.body.end(w.h.bodyWaits)
}

// finish runs as the handler returns. A body left unread (a refusal, or
// one cut off by a limit), which net/http reads on after the handler
// returns before it reuses the connection, keeps its BodyTimeout as a
// read deadline on the connection.
//
// Then it sends what is buffered under the last write deadline, then sets
// a fresh one for what net/http writes after the handler returns: the end
// of a chunked body (an SSE stream's), or the header of an answer that
// wrote none. That write had no deadline when finish cleared it, and a
// client that stopped reading as its stream ended held the connection
// and its goroutine for ever. Leaving one does not fail the next response
// on a kept-alive connection: net/http clears the write deadline once the
// response is finished (as it does every deadline a handler sets through
// http.ResponseController), and this handler sets its own per write. Over
// HTTP/2 the deadline is the stream's, which ends with it. (A bodiless
// answer declares its length, writeAccepted, so that flushing it here
// does not make it chunked.) A whole answer (writeWhole) flushed without
// error leaves net/http nothing to write, and needs no fresh deadline.
func (w *deadlineWriter) finish() {
	if w.body.waiting && !w.body.end(w.h.bodyWaits) {
		_ = w.rc.SetReadDeadline(w.body.due)
	}
	if w.timeout <= 0 {
		return
	}
	if w.wrote {
		err := w.rc.Flush()
		fired := w.flush.end(w.h.flushes)
		if err == nil && !fired && w.whole {
			return
		}
	}
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
}

// aLongTimeAgo is a deadline already past: set, it ends a read or write
// in progress at once.
var aLongTimeAgo = time.Unix(1, 0)

// connWait is a deadline on a request's connection kept by one of the
// Handler's delay queues instead of by the connection's own runtime timer
// (internal/delayq says why): while it waits, nothing is set on the
// connection; if it falls due, it sets the deadline in the past, which
// ends a read or write in progress as the deadline would have.
type connWait struct {
	delayq.Entry
	rc      *http.ResponseController
	write   bool      // a write deadline; else a read deadline
	waiting bool      // started and not ended; the request's goroutine's
	due     time.Time // when it falls due

	mu    sync.Mutex // orders Due with end
	ended bool
	fired bool
}

// start starts the wait; a connWait is started at most once.
func (c *connWait) start(q *delayq.Queue) {
	c.waiting = true
	c.due = q.Add(&c.Entry, c)
}

// Due is the queue's: the deadline has passed. It sets it on a goroutine
// of its own, as the runtime ran a connection's deadline: over HTTP/2 a
// deadline goes through the connection's serve loop, and one stuck
// connection must not hold the queue's timer goroutine, and with it every
// other request's deadlines. Few waits ever fall due.
func (c *connWait) Due() { go c.fire() }

func (c *connWait) fire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return
	}
	c.fired = true
	if c.write {
		_ = c.rc.SetWriteDeadline(aLongTimeAgo)
	} else {
		_ = c.rc.SetReadDeadline(aLongTimeAgo)
	}
}

// end stops the wait, if started, and reports whether it fell due first:
// the deadline was then set in the past. After end, Due sets nothing.
func (c *connWait) end(q *delayq.Queue) (fired bool) {
	if !c.waiting {
		return false
	}
	c.waiting = false
	if q.Remove(&c.Entry) {
		return false
	}
	c.mu.Lock()
	c.ended = true
	fired = c.fired
	c.mu.Unlock()
	return fired
}

// zeroLength is the Content-Length of an answer without a body.
var zeroLength = []string{"0"}

// writeAccepted answers 202 with no body, its length declared: flushed
// before the handler returns (deadlineWriter.finish), an answer of
// unknown length would be sent chunked.
func writeAccepted(w http.ResponseWriter) {
	w.Header()["Content-Length"] = zeroLength
	w.WriteHeader(http.StatusAccepted)
}
