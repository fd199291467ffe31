package mcphttp

import (
	"compress/gzip"
	"errors"
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
// first Read until Close. As net/http's own, it holds its lock only to
// take and give back the reader, so that Close does not wait for a Read
// blocked on the network.
type gzipBody struct {
	body io.ReadCloser
	mu   sync.Mutex   // guards the fields below
	zr   *gzip.Reader // nil until the first Read, and while one reads
	err  error        // of the gzip header, returned by every Read
	busy bool         // a Read holds zr
	done bool         // closed
}

func (b *gzipBody) Read(p []byte) (int, error) {
	zr, err := b.acquire()
	if err != nil {
		return 0, err
	}
	n, err := zr.Read(p)
	b.mu.Lock()
	b.busy = false
	if b.done {
		putGzip(zr)
	} else {
		b.zr = zr
	}
	b.mu.Unlock()
	return n, err
}

// acquire takes the reader, made on the first call.
func (b *gzipBody) acquire() (*gzip.Reader, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.done:
		return nil, http.ErrBodyReadAfterClose
	case b.busy:
		return nil, errors.New("mcphttp: concurrent reads of a response body")
	case b.err != nil:
		return nil, b.err
	case b.zr == nil:
		zr, _ := gzipPool.Get().(*gzip.Reader)
		if zr == nil {
			zr, b.err = gzip.NewReader(b.body)
		} else if b.err = zr.Reset(b.body); b.err != nil {
			putGzip(zr)
		}
		if b.err != nil {
			return nil, b.err
		}
		b.zr = zr
	}
	zr := b.zr
	b.zr, b.busy = nil, true
	return zr, nil
}

func (b *gzipBody) Close() error {
	b.mu.Lock()
	if !b.done {
		b.done = true
		if b.zr != nil {
			putGzip(b.zr)
			b.zr = nil
		}
	}
	b.mu.Unlock()
	return b.body.Close()
}

// putGzip gives zr back to the pool, without the body it read.
func putGzip(zr *gzip.Reader) {
	_ = zr.Reset(eofReader{})
	gzipPool.Put(zr)
}

// eofReader is an empty io.ByteReader, for gzip.Reader.Reset to keep
// without wrapping it in a bufio.Reader.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
func (eofReader) ReadByte() (byte, error)  { return 0, io.EOF }
