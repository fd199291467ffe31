package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"

	"github.com/winbridge/winbridge/bench/internal/servers/wb"
	wbclient "github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// The wire floor of each era: net/http alone carrying, request for
// request, the bytes a winbridge echo call carries in that era (headers
// and bodies recorded from a real call), with no MCP code on either end.
//
// A 2026-07-28 request carries its _meta (protocol version, client info,
// capabilities) and two more headers; its result carries resultType and
// the server's info. Paired against each other, the two floors say how
// much of the stateless path's extra cost is those bytes in net/http and
// the kernel, which no library can avoid, and so how much is the
// library's own.

var wireFloorImpls = []impl{
	{name: "wire-2025-11-25", start: startWireFloor(legacyVersion), concurrent: true},
	{name: "wire-2026-07-28", start: startWireFloor(""), concurrent: true},
}

// wireCall is one tools/call as it went over the wire.
type wireCall struct {
	reqHeader  http.Header
	reqBody    []byte
	status     int
	respHeader http.Header
	respBody   []byte
}

// recordingRT records the first tools/call that passes through it.
type recordingRT struct {
	rt   http.RoundTripper
	mu   sync.Mutex
	call *wireCall
}

func (t *recordingRT) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		var err error
		if body, err = io.ReadAll(r.Body); err != nil {
			return nil, err
		}
		r.Body.Close()
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := t.rt.RoundTrip(r)
	if err != nil || r.Method != http.MethodPost || !bytes.Contains(body, []byte(`"method":"tools/call"`)) {
		return resp, err
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(got))
	t.mu.Lock()
	if t.call == nil {
		h := resp.Header.Clone()
		// net/http writes these itself.
		h.Del("Date")
		h.Del("Content-Length")
		t.call = &wireCall{reqHeader: r.Header.Clone(), reqBody: body, status: resp.StatusCode, respHeader: h, respBody: got}
	}
	t.mu.Unlock()
	return resp, nil
}

// recordWire makes one echo call through winbridge's HTTP client and
// handler in protocol version (2026-07-28 for "") and returns it as it
// went over the wire.
func recordWire(ctx context.Context, version string) (*wireCall, error) {
	h := mcphttp.NewHandler(wb.New(), nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer ts.CloseClientConnections()
	defer shutdownWithin(h)()
	hc := newBenchHTTPClient()
	defer hc.CloseIdleConnections()
	rec := &recordingRT{rt: hc.Transport}
	hc.Transport = rec
	stream, err := mcphttp.NewStream(context.Background(), ts.URL, &mcphttp.ClientOptions{Client: hc, NoListen: true})
	if err != nil {
		return nil, err
	}
	c, err := wbclient.Connect(ctx, stream, &wbclient.Options{ProtocolVersion: version})
	if err != nil {
		stream.Close()
		return nil, err
	}
	defer c.Close()
	if got, err := (&winbridgeSession{c: c}).echo(ctx, shortText); err != nil || got != shortText {
		return nil, fmt.Errorf("recording echo: %q, %v", got, err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.call == nil {
		return nil, fmt.Errorf("no tools/call recorded")
	}
	return rec.call, nil
}

// startWireFloor serves the recorded call's answer to every POST and
// sends the recorded request, both byte for byte.
func startWireFloor(version string) func(ctx context.Context) (session, error) {
	return func(ctx context.Context) (session, error) {
		call, err := recordWire(ctx, version)
		if err != nil {
			return nil, err
		}
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			for k, v := range call.respHeader {
				w.Header()[k] = v
			}
			w.WriteHeader(call.status)
			_, _ = w.Write(call.respBody)
		}))
		hc := newBenchHTTPClient()
		return &httpSession{
			session:     &wireSession{hc: hc, url: ts.URL, call: call},
			closeClient: func() error { return nil },
			ts:          ts,
			hc:          hc,
		}, nil
	}
}

// wireSession replays a recorded call. Its echo answers shortText when
// the answer came back byte for byte.
type wireSession struct {
	hc   *http.Client
	url  string
	call *wireCall
}

func (s *wireSession) echo(ctx context.Context, text string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(s.call.reqBody))
	if err != nil {
		return "", err
	}
	// A client builds its headers afresh for every request.
	req.Header = s.call.reqHeader.Clone()
	resp, err := s.hc.Do(req)
	if err != nil {
		return "", err
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return "", err
	}
	if resp.StatusCode != s.call.status || !bytes.Equal(got, s.call.respBody) {
		return "", fmt.Errorf("answer %d %q", resp.StatusCode, got)
	}
	return text, nil
}

func (s *wireSession) sleep(context.Context, int) error { return fmt.Errorf("wire floor: no sleep") }

func (s *wireSession) ready(ctx context.Context) (int, error) {
	_, err := s.echo(ctx, shortText)
	return 1, err
}

func (s *wireSession) pid() int     { return 0 }
func (s *wireSession) close() error { return nil }
