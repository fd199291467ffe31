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
}

func (w *deadlineWriter) Write(b []byte) (int, error) {
	_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer; a
// Flush after Write runs under the deadline Write set.
func (w *deadlineWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// finish sends what is buffered under the last deadline, then clears it,
// so that it cannot fail the next response on the same connection.
func (w *deadlineWriter) finish() {
	if w.wrote {
		_ = w.rc.Flush()
	}
	_ = w.rc.SetWriteDeadline(time.Time{})
}
