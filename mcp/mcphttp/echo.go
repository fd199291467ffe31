package mcphttp

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/winbridge/winbridge/internal/echo"
	"github.com/winbridge/winbridge/transport"
)

// EchoHandler returns middleware that logs a readable summary of every
// request to next: HTTP method and path, status, duration, the JSON-RPC
// method and id of the request, and the outcome of the response (result,
// or error and code; for an SSE stream, of the event answering the
// request), with headers and bodies shown masked and cut. It takes the
// options of transport.TapFramer, its counterpart for other transports.
//
// Masked: the credential headers (Authorization, Authentication, Cookie,
// X-Api-Key, X-Access-Key, Mcp-Session-Id...), every header or JSON
// member named like a token, secret, password, key, credential, session
// or signature (api_key, apiKey, accessToken, client_secret, DB_PASS,
// GITHUB_PAT...), every value under env and headers, such values inside
// strings (URL user info, Bearer values, ?access_token=, --password x),
// plus EchoOptions.MaskHeaders and MaskFields. A body that is not JSON
// (a byte order mark before it, form encoding) is never shown, only its
// length. docs/HTTP.md lists the rules.
//
// The echo never changes what passes: bodies are teed, not buffered, and
// every Flush is passed on at once, so SSE streams still stream. The
// summary of a stream is logged when it ends.
func EchoHandler(next http.Handler, opts *transport.EchoOptions) http.Handler {
	var c echo.Config
	if opts != nil {
		c = echo.Config(*opts)
	}
	e := echo.New(c)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		req := e.NewCapture()
		if r.Body != nil {
			r.Body = &teeBody{ReadCloser: r.Body, c: req}
		}
		ew := &echoWriter{ResponseWriter: w, resp: e.NewCapture()}
		defer func() {
			logRequest(e, r, ew, req, time.Since(start))
		}()
		next.ServeHTTP(ew, r)
	})
}

func logRequest(e *echo.Echo, r *http.Request, ew *echoWriter, req *echo.Capture, d time.Duration) {
	if !e.Enabled() {
		return
	}
	status := ew.status
	if status == 0 {
		status = http.StatusOK
	}
	in := e.Summarize(req.Bytes())
	respSSE := isSSE(ew.Header().Get("Content-Type"))
	outcome := ""
	if respSSE {
		for _, d := range echo.SSEData(ew.resp.Bytes()) {
			if s := echo.Summarize(d); s.Outcome != "" && (in.ID == "" || s.ID == in.ID) {
				outcome = s.Outcome
			}
		}
	} else {
		outcome = echo.Summarize(ew.resp.Bytes()).Outcome
	}
	attrs := []slog.Attr{
		slog.String("http", r.Method+" "+r.URL.Path),
		slog.Int("status", status),
		slog.Duration("dur", d),
	}
	if in.Method != "" {
		attrs = append(attrs, slog.String("rpc", in.Method))
	}
	if in.ID != "" {
		attrs = append(attrs, slog.String("id", in.ID))
	}
	if outcome != "" {
		attrs = append(attrs, slog.String("outcome", outcome))
	}
	attrs = append(attrs,
		slog.String("req.headers", e.HeaderText(r.Header)),
		slog.String("req.body", e.Render(req, isSSE(r.Header.Get("Content-Type")))),
		slog.String("resp.headers", e.HeaderText(ew.Header())),
		slog.String("resp.body", e.Render(ew.resp, respSSE)),
	)
	e.Log.LogAttrs(context.Background(), e.Level, "mcp http", attrs...)
}

func isSSE(contentType string) bool {
	mt, _, _ := parseMediaType(contentType)
	return mt == "text/event-stream"
}

// teeBody copies what the handler reads of a request body.
type teeBody struct {
	io.ReadCloser
	c *echo.Capture
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	t.c.Add(p[:n])
	return n, err
}

// echoWriter passes a response through unchanged, noting its status and
// the first bytes of its body.
type echoWriter struct {
	http.ResponseWriter
	status int
	resp   *echo.Capture
}

func (w *echoWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *echoWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.resp.Add(p[:n])
	return n, err
}

// Flush passes a flush on at once: SSE events must not wait in the echo.
func (w *echoWriter) Flush() {
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *echoWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
