package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// EchoOptions configure EchoHandler and TapFramer. The zero value is ready
// to use: summaries go to slog.Default() at info level.
type EchoOptions struct {
	// Handler receives one record per HTTP request or frame. If nil,
	// Writer is used.
	Handler slog.Handler
	// Writer receives one line per HTTP request or frame, in slog's text
	// format, when Handler is nil. If both are nil, slog.Default() is used.
	Writer io.Writer
	// Level of the records; zero is info.
	Level slog.Level
	// MaxText cuts a rendered body (or frame) longer than this many bytes,
	// with a mark saying how much was cut; zero means 1024.
	MaxText int
	// MaxCapture bounds how much of each body is kept to summarise it; the
	// rest still flows through untouched. Zero means 1 MiB.
	MaxCapture int
	// MaskHeaders and MaskFields name further HTTP headers and JSON
	// members whose values are replaced by "[masked]", besides the
	// built-in ones (see EchoHandler).
	MaskHeaders, MaskFields []string
}

// masked replaces a sensitive value wherever the echo shows one.
const masked = "[masked]"

// echo is the shared machinery of EchoHandler and TapFramer.
type echo struct {
	log        *slog.Logger
	level      slog.Level
	maxText    int
	maxCapture int
	extra      map[string]bool // normalized extra names
}

func newEcho(opts *EchoOptions) *echo {
	if opts == nil {
		opts = &EchoOptions{}
	}
	e := &echo{level: opts.Level, maxText: opts.MaxText, maxCapture: opts.MaxCapture, extra: map[string]bool{}}
	switch {
	case opts.Handler != nil:
		e.log = slog.New(opts.Handler)
	case opts.Writer != nil:
		e.log = slog.New(slog.NewTextHandler(opts.Writer, &slog.HandlerOptions{Level: slog.LevelDebug}))
	default:
		e.log = slog.Default()
	}
	if e.maxText <= 0 {
		e.maxText = 1024
	}
	if e.maxCapture <= 0 {
		e.maxCapture = 1 << 20
	}
	for _, n := range slices.Concat(opts.MaskHeaders, opts.MaskFields) {
		e.extra[normalizeName(n)] = true
	}
	return e
}

// normalizeName folds case and drops '-' and '_', so that api_key, apiKey
// and X-Api-Key compare alike.
func normalizeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' {
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// sensitive reports whether a header or JSON member holds a secret: the
// credential headers, API keys, and anything named like a token, secret,
// password or credential. progressToken and maxTokens are protocol
// bookkeeping, not secrets, and stay visible.
func (e *echo) sensitive(name string) bool {
	n := normalizeName(name)
	switch n {
	case "progresstoken", "maxtokens":
		return false
	case "authorization", "proxyauthorization", "cookie", "setcookie", "xapikey", "apikey":
		return true
	}
	if e.extra[n] {
		return true
	}
	for _, s := range []string{"token", "secret", "password", "passwd", "apikey", "credential", "privatekey"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// cut shortens s to the text limit with an explicit mark; hidden counts
// bytes of the original that never made it into s (beyond the capture).
func (e *echo) cut(s string, hidden int) string {
	if len(s) <= e.maxText && hidden == 0 {
		return s
	}
	keep := min(len(s), e.maxText)
	for keep < len(s) && keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + "…[truncated " + strconv.Itoa(len(s)-keep+hidden) + " bytes]"
}

// maskJSON re-encodes JSON compactly with the values of sensitive members
// replaced. It copes with a prefix of a document (a capped capture): what
// could be read is rendered, and ok is false.
func (e *echo) maskJSON(data []byte) (out string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		object bool
		n      int  // members or elements so far
		key    bool // an object expects a key next
	}
	var b strings.Builder
	var stack []*frame
	emit := func(v any) {
		enc, _ := json.Marshal(v)
		b.Write(enc)
	}
	valueDone := func() {
		if len(stack) > 0 {
			top := stack[len(stack)-1]
			top.n++
			if top.object {
				top.key = true
			}
		}
	}
	sepForValue := func() {
		if len(stack) > 0 {
			if top := stack[len(stack)-1]; !top.object && top.n > 0 {
				b.WriteByte(',')
			}
		}
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return b.String(), len(stack) == 0
		}
		if err != nil {
			return b.String(), false
		}
		if d, isDelim := tok.(json.Delim); isDelim {
			switch d {
			case '{', '[':
				sepForValue()
				b.WriteRune(rune(d))
				stack = append(stack, &frame{object: d == '{', key: d == '{'})
			default:
				b.WriteRune(rune(d))
				stack = stack[:len(stack)-1]
				valueDone()
			}
			continue
		}
		if len(stack) > 0 && stack[len(stack)-1].object && stack[len(stack)-1].key {
			top := stack[len(stack)-1]
			name, _ := tok.(string)
			if top.n > 0 {
				b.WriteByte(',')
			}
			emit(name)
			b.WriteByte(':')
			top.key = false
			if e.sensitive(name) {
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					b.WriteString(strconv.Quote(masked))
					return b.String(), false
				}
				b.WriteString(strconv.Quote(masked))
				valueDone()
			}
			continue
		}
		sepForValue()
		emit(tok)
		valueDone()
	}
}

// render shows a captured body: JSON masked and compacted, an SSE body as
// its events' data (each masked) joined by " | ", anything else as text;
// all cut to the limit.
func (e *echo) render(c *capture, contentType string) string {
	if c.total == 0 {
		return ""
	}
	hidden := int(c.total - int64(len(c.buf)))
	if isSSE(contentType) {
		var parts []string
		for _, d := range sseData(c.buf) {
			s, _ := e.maskJSON(d)
			if s == "" {
				s = string(d)
			}
			parts = append(parts, s)
		}
		return e.cut(strings.Join(parts, " | "), hidden)
	}
	if s, _ := e.maskJSON(c.buf); s != "" {
		return e.cut(s, hidden)
	}
	return e.cut(string(c.buf), hidden)
}

func isSSE(contentType string) bool {
	mt, _, _ := mime.ParseMediaType(contentType)
	return mt == "text/event-stream"
}

// sseData returns the data of each event in an SSE body.
func sseData(body []byte) [][]byte {
	var out [][]byte
	var cur []byte
	has := false
	for line := range bytes.SplitSeq(body, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			if has && len(cur) > 0 {
				out = append(out, cur)
			}
			cur, has = nil, false
			continue
		}
		if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			if has {
				cur = append(cur, '\n')
			}
			cur = append(cur, bytes.TrimPrefix(v, []byte(" "))...)
			has = true
		}
	}
	if has && len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// rpcSummary is what a message says at a glance.
type rpcSummary struct {
	method  string
	id      string
	outcome string // "result", "error <code>", or ""
}

func summarize(msg []byte) rpcSummary {
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code json.Number `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(msg, &env) != nil {
		return rpcSummary{}
	}
	s := rpcSummary{method: env.Method, id: string(env.ID)}
	switch {
	case env.Error != nil:
		s.outcome = "error " + env.Error.Code.String()
	case env.Result != nil:
		s.outcome = "result"
	}
	return s
}

// headerText renders headers in a stable order with sensitive values
// masked.
func (e *echo) headerText(h http.Header) string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		v := strings.Join(h[k], ", ")
		if e.sensitive(k) {
			v = masked
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString(k + ": " + v)
	}
	return e.cut(b.String(), 0)
}

// capture keeps the first bytes of a body and counts all of them.
type capture struct {
	buf   []byte
	limit int
	total int64
}

func (c *capture) add(p []byte) {
	c.total += int64(len(p))
	if room := c.limit - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
}

// EchoHandler returns middleware that logs a readable summary of every
// request to next: HTTP method and path, status, duration, the JSON-RPC
// method and id of the request, and the outcome of the response (result,
// or error and code; for an SSE stream, of the event answering the
// request), with headers and bodies shown masked and cut.
//
// Masked: the headers Authorization, Proxy-Authorization, Cookie,
// Set-Cookie and X-Api-Key, and every header or JSON member named like a
// token, secret, password, API key or credential (api_key, apiKey,
// accessToken, client_secret...), plus EchoOptions.MaskHeaders and
// MaskFields.
//
// The echo never changes what passes: bodies are teed, not buffered, and
// every Flush is passed on at once, so SSE streams still stream. The
// summary of a stream is logged when it ends.
func EchoHandler(next http.Handler, opts *EchoOptions) http.Handler {
	e := newEcho(opts)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		req := &capture{limit: e.maxCapture}
		if r.Body != nil {
			r.Body = &teeBody{ReadCloser: r.Body, c: req}
		}
		ew := &echoWriter{ResponseWriter: w, resp: &capture{limit: e.maxCapture}}
		defer func() {
			e.logRequest(r, ew, req, time.Since(start))
		}()
		next.ServeHTTP(ew, r)
	})
}

func (e *echo) logRequest(r *http.Request, ew *echoWriter, req *capture, d time.Duration) {
	ctx := context.Background()
	if !e.log.Enabled(ctx, e.level) {
		return
	}
	status := ew.status
	if status == 0 {
		status = http.StatusOK
	}
	in := summarize(req.buf)
	respType := ew.Header().Get("Content-Type")
	outcome := ""
	if isSSE(respType) {
		for _, d := range sseData(ew.resp.buf) {
			if s := summarize(d); s.outcome != "" && (in.id == "" || s.id == in.id) {
				outcome = s.outcome
			}
		}
	} else {
		outcome = summarize(ew.resp.buf).outcome
	}
	attrs := []slog.Attr{
		slog.String("http", r.Method+" "+r.URL.Path),
		slog.Int("status", status),
		slog.Duration("dur", d),
	}
	if in.method != "" {
		attrs = append(attrs, slog.String("rpc", in.method))
	}
	if in.id != "" {
		attrs = append(attrs, slog.String("id", in.id))
	}
	if outcome != "" {
		attrs = append(attrs, slog.String("outcome", outcome))
	}
	attrs = append(attrs,
		slog.String("req.headers", e.headerText(r.Header)),
		slog.String("req.body", e.render(req, r.Header.Get("Content-Type"))),
		slog.String("resp.headers", e.headerText(ew.Header())),
		slog.String("resp.body", e.render(ew.resp, respType)),
	)
	e.log.LogAttrs(ctx, e.level, "mcp http", attrs...)
}

// teeBody copies what the handler reads of a request body.
type teeBody struct {
	io.ReadCloser
	c *capture
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	t.c.add(p[:n])
	return n, err
}

// echoWriter passes a response through unchanged, noting its status and
// the first bytes of its body.
type echoWriter struct {
	http.ResponseWriter
	status int
	resp   *capture
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
	w.resp.add(p[:n])
	return n, err
}

// Flush passes a flush on at once: SSE events must not wait in the echo.
func (w *echoWriter) Flush() {
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *echoWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// TapFramer returns a Framer that logs every frame read from and written
// to f the way EchoHandler logs requests: direction, JSON-RPC method, id
// and outcome, and the message masked and cut. It is the echo for
// transports without HTTP, such as stdio:
//
//	transport.NewStream(transport.TapFramer(transport.NewLineFramer(rwc, 0), opts), nil)
func TapFramer(f Framer, opts *EchoOptions) Framer {
	return &tapFramer{f: f, e: newEcho(opts)}
}

type tapFramer struct {
	f Framer
	e *echo
}

func (t *tapFramer) ReadFrame() ([]byte, error) {
	msg, err := t.f.ReadFrame()
	if err == nil {
		t.e.logFrame("recv", msg)
	}
	return msg, err
}

func (t *tapFramer) WriteFrame(msg []byte) error {
	t.e.logFrame("send", msg)
	return t.f.WriteFrame(msg)
}

func (t *tapFramer) Close() error { return t.f.Close() }

func (e *echo) logFrame(dir string, msg []byte) {
	ctx := context.Background()
	if !e.log.Enabled(ctx, e.level) {
		return
	}
	s := summarize(msg)
	attrs := []slog.Attr{slog.String("dir", dir)}
	if s.method != "" {
		attrs = append(attrs, slog.String("rpc", s.method))
	}
	if s.id != "" {
		attrs = append(attrs, slog.String("id", s.id))
	}
	if s.outcome != "" {
		attrs = append(attrs, slog.String("outcome", s.outcome))
	}
	c := &capture{limit: e.maxCapture}
	c.add(msg)
	attrs = append(attrs, slog.String("msg", e.render(c, "application/json")))
	e.log.LogAttrs(ctx, e.level, "mcp frame", attrs...)
}
