package echo

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Config mirrors transport.EchoOptions field for field, so that callers
// convert with Config(opts): the compiler then keeps the two in step.
type Config struct {
	Handler                 slog.Handler
	Writer                  io.Writer
	Level                   slog.Level
	MaxText                 int
	MaxCapture              int
	MaskHeaders, MaskFields []string
}

// Masked replaces a sensitive value wherever the echo shows one.
const Masked = "[masked]"

// Echo renders and logs messages as the options ask.
type Echo struct {
	Log        *slog.Logger
	Level      slog.Level
	maxText    int
	maxCapture int
	extra      map[string]bool // normalized extra names
}

// New applies the defaults of EchoOptions: slog.Default() at info level,
// text cut at 1024 bytes, bodies captured up to 1 MiB.
func New(c Config) *Echo {
	e := &Echo{Level: c.Level, maxText: c.MaxText, maxCapture: c.MaxCapture, extra: map[string]bool{}}
	switch {
	case c.Handler != nil:
		e.Log = slog.New(c.Handler)
	case c.Writer != nil:
		e.Log = slog.New(slog.NewTextHandler(c.Writer, &slog.HandlerOptions{Level: slog.LevelDebug}))
	default:
		e.Log = slog.Default()
	}
	if e.maxText <= 0 {
		e.maxText = 1024
	}
	if e.maxCapture <= 0 {
		e.maxCapture = 1 << 20
	}
	for _, n := range slices.Concat(c.MaskHeaders, c.MaskFields) {
		e.extra[normalizeName(n)] = true
	}
	return e
}

// Enabled reports whether records at the echo's level are wanted, so that
// callers skip the rendering otherwise.
func (e *Echo) Enabled() bool { return e.Log.Enabled(context.Background(), e.Level) }

// NewCapture returns a capture bounded by the echo's capture limit.
func (e *Echo) NewCapture() *Capture { return &Capture{limit: e.maxCapture} }

// Cut shortens s to the text limit with an explicit mark; hidden counts
// bytes of the original that never made it into s (beyond the capture).
func (e *Echo) Cut(s string, hidden int) string {
	if len(s) <= e.maxText && hidden == 0 {
		return s
	}
	keep := min(len(s), e.maxText)
	for keep < len(s) && keep > 0 && !utf8.RuneStart(s[keep]) {
		keep--
	}
	return s[:keep] + "…[truncated " + strconv.Itoa(len(s)-keep+hidden) + " bytes]"
}

// Render shows a captured body: JSON masked and compacted, an SSE body
// (sse true) as its events' data (each masked) joined by " | ", all cut
// to the limit. A body (or event) that is not JSON is never shown: a
// UTF-8 byte order mark, a form-encoded body or a typo would leave its
// secrets unmasked, so only its length and a note are.
func (e *Echo) Render(c *Capture, sse bool) string {
	if c.total == 0 {
		return ""
	}
	hidden := int(c.total - int64(len(c.buf)))
	if sse {
		var parts []string
		events := SSEData(c.buf)
		for i, d := range events {
			// Only the last event can have been cut by the capture.
			s, ok := e.maskJSON(d, hidden > 0 && i == len(events)-1)
			if !ok {
				s = unparsed(d, int64(len(d)))
			}
			parts = append(parts, s)
		}
		return e.Cut(strings.Join(parts, " | "), hidden)
	}
	if s, ok := e.maskJSON(c.buf, hidden > 0); ok {
		return e.Cut(s, hidden)
	}
	return unparsed(c.buf, c.total)
}

// SSEData returns the data of each event in an SSE body.
func SSEData(body []byte) [][]byte {
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

// Summarize is the package's Summarize with the method and id cut to the
// text limit: both are the peer's, and may be as long as a message.
func (e *Echo) Summarize(msg []byte) Summary {
	s := Summarize(msg)
	s.Method, s.ID = e.Cut(s.Method, 0), e.Cut(s.ID, 0)
	return s
}

// Summary is what a message says at a glance.
type Summary struct {
	Method  string
	ID      string
	Outcome string // "result", "error <code>", or ""
}

// Summarize reads the summary of one JSON-RPC message; anything else
// summarises as empty.
func Summarize(msg []byte) Summary {
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code json.Number `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(msg, &env) != nil {
		return Summary{}
	}
	s := Summary{Method: env.Method, ID: string(env.ID)}
	switch {
	case env.Error != nil:
		s.Outcome = "error " + env.Error.Code.String()
	case env.Result != nil:
		s.Outcome = "result"
	}
	return s
}

// HeaderText renders headers (an http.Header, which this package cannot
// name without linking net/http) in a stable order with sensitive values
// masked.
func (e *Echo) HeaderText(h map[string][]string) string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		v := e.Scrub(strings.Join(h[k], ", "))
		if e.Sensitive(k) {
			v = Masked
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString(k + ": " + v)
	}
	return e.Cut(b.String(), 0)
}

// Capture keeps the first bytes of a body and counts all of them.
type Capture struct {
	buf   []byte
	limit int
	total int64
}

// Add records p: all of it in the count, what fits in the kept bytes.
func (c *Capture) Add(p []byte) {
	c.total += int64(len(p))
	if room := c.limit - len(c.buf); room > 0 {
		c.buf = append(c.buf, p[:min(room, len(p))]...)
	}
}

// Bytes returns the kept bytes.
func (c *Capture) Bytes() []byte { return c.buf }

// LogFrame logs one frame of a Framer: its direction ("send" or "recv"),
// summary, and the message masked and cut.
func (e *Echo) LogFrame(dir string, msg []byte) {
	if !e.Enabled() {
		return
	}
	s := e.Summarize(msg)
	attrs := []slog.Attr{slog.String("dir", dir)}
	if s.Method != "" {
		attrs = append(attrs, slog.String("rpc", s.Method))
	}
	if s.ID != "" {
		attrs = append(attrs, slog.String("id", s.ID))
	}
	if s.Outcome != "" {
		attrs = append(attrs, slog.String("outcome", s.Outcome))
	}
	c := e.NewCapture()
	c.Add(msg)
	attrs = append(attrs, slog.String("msg", e.Render(c, false)))
	e.Log.LogAttrs(context.Background(), e.Level, "mcp frame", attrs...)
}
