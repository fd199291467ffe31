package transport

import (
	"context"
	"io"
	"log/slog"

	"github.com/winbridge/winbridge/internal/echo"
)

// EchoOptions configure TapFramer and mcphttp.EchoHandler. The zero value
// is ready to use: summaries go to slog.Default() at info level.
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
	// built-in ones: the credential headers (Authorization,
	// Proxy-Authorization, Authentication, Cookie, Set-Cookie, X-Api-Key,
	// X-Access-Key, Mcp-Session-Id), every header, member, environment
	// variable or flag named like a token, secret, password, key,
	// credential, session or signature (DB_PASS, GITHUB_PAT,
	// AWS_ACCESS_KEY_ID), every value under env and headers, and such
	// values inside strings (URL user info, Bearer values, ?access_token=,
	// --password x). A body that is not JSON is never shown, only its
	// length. docs/HTTP.md lists the rules.
	MaskHeaders, MaskFields []string
}

// TapFramer returns a Framer that logs every frame read from and written
// to f the way mcphttp.EchoHandler logs requests: direction, JSON-RPC
// method, id and outcome, and the message masked and cut. It is the echo
// for transports without HTTP, such as stdio:
//
//	transport.NewStream(transport.TapFramer(transport.NewLineFramer(rwc, 0), opts), nil)
func TapFramer(f Framer, opts *EchoOptions) Framer {
	var c echo.Config
	if opts != nil {
		c = echo.Config(*opts)
	}
	t := &tapFramer{f: f, e: echo.New(c)}
	// Keep the paired path of a framer that has one, logging both
	// messages of each call, and what it says of the calls its frames
	// came with (RelatedFramer): the HTTP client's framer does both, and
	// without the second a client could no longer tell whose call a
	// request of the server is about.
	rt, isRT := f.(RoundTripper)
	rf, isRF := f.(RelatedFramer)
	switch {
	case isRT && isRF:
		return &tapRelatedRoundTripper{tapRoundTripper{tapFramer: t, rt: rt}, rf}
	case isRT:
		return &tapRoundTripper{tapFramer: t, rt: rt}
	case isRF:
		return &tapRelatedFramer{t, rf}
	}
	return t
}

type tapRelatedFramer struct {
	*tapFramer
	rf RelatedFramer
}

func (t *tapRelatedFramer) ReadFrameRelated() ([]byte, context.Context, error) {
	return t.readRelated(t.rf)
}

type tapRelatedRoundTripper struct {
	tapRoundTripper
	rf RelatedFramer
}

func (t *tapRelatedRoundTripper) ReadFrameRelated() ([]byte, context.Context, error) {
	return t.readRelated(t.rf)
}

type tapRoundTripper struct {
	*tapFramer
	rt RoundTripper
}

func (t *tapRoundTripper) RoundTrip(ctx context.Context, msg []byte) ([]byte, error) {
	t.e.LogFrame("send", msg)
	resp, err := t.rt.RoundTrip(ctx, msg)
	if err == nil {
		t.e.LogFrame("recv", resp)
	}
	return resp, err
}

type tapFramer struct {
	f Framer
	e *echo.Echo
}

func (t *tapFramer) ReadFrame() ([]byte, error) {
	msg, err := t.f.ReadFrame()
	if err == nil {
		t.e.LogFrame("recv", msg)
	}
	return msg, err
}

func (t *tapFramer) readRelated(rf RelatedFramer) ([]byte, context.Context, error) {
	msg, related, err := rf.ReadFrameRelated()
	if err == nil {
		t.e.LogFrame("recv", msg)
	}
	return msg, related, err
}

func (t *tapFramer) WriteFrame(msg []byte) error {
	t.e.LogFrame("send", msg)
	return t.f.WriteFrame(msg)
}

func (t *tapFramer) Close() error { return t.f.Close() }
