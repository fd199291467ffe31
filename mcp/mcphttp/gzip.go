package mcphttp

import (
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"sync"
)

// net/http's Transport asks for gzip on its own when a request does not,
// and decodes a gzipped response; but it records that in a header map of
// its own for every request (an allocation of a map and its table). Where
// the framer shares its requests' headers (canShareHeader), it asks for
// gzip in them instead, the same on the wire, and decodes the response
// here as the Transport would have. A Transport with DisableCompression
// is left as it is: nothing is asked for, nothing decoded.

// acceptsGzip reports whether the framer asks for gzip itself for c and
// the caller's headers h: c's transport is net/http's and would have (h
// asks for no encoding nor range of its own).
func acceptsGzip(c *http.Client, h http.Header) bool {
	if h.Get("Accept-Encoding") != "" || h.Get("Range") != "" {
		return false
	}
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	t, ok := rt.(*http.Transport)
	return ok && !t.DisableCompression && canShareHeader(c)
}

// gunzip makes resp's body the decoding of a gzipped body, as net/http's
// Transport does with a response to its own request for gzip.
func gunzip(resp *http.Response) {
	if resp.ContentLength == 0 || !strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		return
	}
	resp.Body = &gzipBody{body: resp.Body}
	resp.Header.Del("Content-Encoding")
	resp.Header.Del("Content-Length")
	resp.ContentLength = -1
	resp.Uncompressed = true
}

var gzipPool sync.Pool // of *gzip.Reader

// gzipBody decodes a gzipped body, with a reader from gzipPool from its
// first Read until Close.
type gzipBody struct {
	body io.ReadCloser
	mu   sync.Mutex // guards zr, err, closed
	zr   *gzip.Reader
	err  error // of the gzip header, returned by every Read
	done bool  // closed
}

func (b *gzipBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.done:
		return 0, http.ErrBodyReadAfterClose
	case b.err != nil:
		return 0, b.err
	case b.zr == nil:
		zr, _ := gzipPool.Get().(*gzip.Reader)
		if zr == nil {
			zr, b.err = gzip.NewReader(b.body)
		} else {
			b.err = zr.Reset(b.body)
		}
		if b.err != nil {
			return 0, b.err
		}
		b.zr = zr
	}
	return b.zr.Read(p)
}

func (b *gzipBody) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.done {
		b.done = true
		if b.zr != nil {
			_ = b.zr.Reset(eofReader{}) // drop the body
			gzipPool.Put(b.zr)
			b.zr = nil
		}
	}
	return b.body.Close()
}

// eofReader is an empty io.ByteReader, for gzip.Reader.Reset to keep
// without wrapping it in a bufio.Reader.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
func (eofReader) ReadByte() (byte, error)  { return 0, io.EOF }
