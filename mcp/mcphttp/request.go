package mcphttp

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/winbridge/winbridge/internal/urlshow"
)

// The client makes one HTTP request per message. http.NewRequestWithContext
// parsed the endpoint's URL again for each, and wrapped the body in three
// allocations (a reader, its copy for GetBody and a no-op closer); the
// request is made here instead from a template filled once by
// http.NewRequest in NewFramer, with the fields NewRequestWithContext
// would set, so that redirects and retries (GetBody, ContentLength) work
// as they did.

// newEndpoint is the template of the framer's requests: the URL parsed,
// and its host normalized, as http.NewRequest leaves them.
func newEndpoint(rawURL string) (*http.Request, error) {
	r, err := http.NewRequest(http.MethodPost, rawURL, nil)
	if err != nil {
		return nil, urlshow.Error(err) // a parse error quotes the URL
	}
	r.Header = nil // each request gets its own (Framer.do)
	return r, nil
}

// newRequest makes a request to the endpoint carrying m's message (none
// if m is nil), without a header. Its URL is a copy of the template's, for
// a RoundTripper that changes it. Its Host is left empty, which sends
// URL.Host as NewRequest's copy of it did: with Host set, http.Client
// copied the URL again for every request, to look up cookies.
func (f *Framer) newRequest(ctx context.Context, method string, m *outMsg) *http.Request {
	req := f.endpoint.WithContext(ctx)
	u := *f.endpoint.URL
	req.URL = &u
	req.Host = ""
	req.Method = method
	if m != nil {
		m.setBody(req)
	}
	return req
}

// setBody sets req's body to m's message, as http.NewRequest does for a
// *bytes.Reader: its length, and GetBody for a redirect or a retry on a
// new connection. The body is an io.NopCloser of a *bytes.Reader, a type
// net/http knows to be in memory (it writes the headers and the body
// together). The reader lives in m, which is POSTed once.
func (m *outMsg) setBody(req *http.Request) {
	req.ContentLength = int64(len(m.raw))
	if len(m.raw) == 0 {
		req.Body = http.NoBody
		req.GetBody = func() (io.ReadCloser, error) { return http.NoBody, nil }
		return
	}
	m.body.Reset(m.raw)
	req.Body = io.NopCloser(&m.body)
	req.GetBody = m.getBody
}

// getBody is the request's GetBody: a fresh reader of the message.
func (m *outMsg) getBody() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(m.raw)), nil
}
