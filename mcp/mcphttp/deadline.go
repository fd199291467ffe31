package mcphttp

import (
	"net/http"
	"time"
)

// deadlineWriter gives each write to the client WriteTimeout to complete
// (HandlerOptions.WriteTimeout): a deadline per write rather than per
// response, since an SSE response lives as long as its session.
type deadlineWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	wrote   bool
	// whole: the answer went out in one writeWhole, its length declared,
	// and nothing after it. Once flushed, net/http writes nothing more for
	// it, and clears the write deadline itself as the response finishes.
	whole bool
}

// WriteHeader starts the deadline too: a response with no body (202,
// 204) or one that flushes its header before its first event (SSE) is
// written under it, not under none.
func (w *deadlineWriter) WriteHeader(code int) {
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	w.wrote, w.whole = true, false
	w.ResponseWriter.WriteHeader(code)
}

func (w *deadlineWriter) Write(b []byte) (int, error) {
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	w.wrote, w.whole = true, false
	return w.ResponseWriter.Write(b)
}

// writeWhole writes a whole answer whose header declares its length
// (writeJSON) under one deadline, armed once for its header and body:
// what WriteHeader and Write do not send at once (all of a small answer)
// goes out in finish's Flush, under this deadline, armed a moment before,
// as it went under Write's. Each arming moves the connection's runtime
// timer, and may wake the network poller: strace counted one eventfd
// write (netpollBreak) on every second call of a sequential client, and
// none for a bare net/http handler; the arms of WriteHeader and of
// finish, microseconds apart from Write's, were a third of them.
func (w *deadlineWriter) writeWhole(status int, body []byte) {
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	w.wrote, w.whole = true, true
	w.ResponseWriter.WriteHeader(status)
	_, _ = w.ResponseWriter.Write(body)
}

// Unwrap lets http.ResponseController reach the underlying writer; a
// Flush after Write runs under the deadline Write set.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish sends what is buffered under the last deadline, then sets a
// fresh one for what net/http writes after the handler returns: the end
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
	if w.wrote {
		if err := w.rc.Flush(); err == nil && w.whole {
			return
		}
	}
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
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
