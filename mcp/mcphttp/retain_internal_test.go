package mcphttp

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// Hundreds of calls whose client went away before their large results
// came: the session keeps no more streams, bytes or age of them than its
// limits allow, however many there were. (Before the limits, every
// result stayed until the session ended: 300 calls, 300 results.)
func TestRetainedStreamsBounded(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{Logger: quiet})
	const (
		maxStreams = 8
		maxBytes   = 128 << 10
		result     = 16 << 10
	)
	clock := time.Unix(1e9, 0)
	h := NewHandler(srv, &HandlerOptions{Logger: quiet, MaxRetainedStreams: maxStreams, MaxRetainedBytes: maxBytes, RetainFor: time.Minute})
	h.SetClock(func() time.Time { return clock })
	s := h.newSession("s")
	if e := h.register(s, true); e != nil {
		t.Fatal(e.err)
	}
	t.Cleanup(s.end)
	big := strings.Repeat("x", result)
	for i := 1; i <= 300; i++ {
		m, e := parseMessage(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow"}}`, i))
		if e != nil {
			t.Fatal(e.err)
		}
		p, e := s.expect(m, true)
		if e != nil {
			t.Fatal(e.err)
		}
		p.stream.detach() // the POST returned: its client went away
		if err := s.WriteFrame(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":{"text":%q}}`, i, big)); err != nil {
			t.Fatal(err)
		}
		n, bytes := h.Retained("s")
		if n > maxStreams || bytes > maxBytes {
			t.Fatalf("after %d abandoned calls the session holds %d streams, %d bytes; limits %d, %d", i, n, bytes, maxStreams, maxBytes)
		}
	}
	if n, _ := h.Retained("s"); n == 0 {
		t.Fatal("no stream is retained for resumption at all")
	}
	// The newest result is still there to resume; one past RetainFor is not.
	if s.stream("300") == nil {
		t.Fatal("the newest abandoned stream was dropped")
	}
	clock = clock.Add(time.Minute)
	if s.stream("300") != nil {
		t.Fatal("a stream past RetainFor is still retained")
	}
	if n, bytes := h.Retained("s"); n != 0 || bytes != 0 {
		t.Fatalf("past RetainFor the session still holds %d streams, %d bytes", n, bytes)
	}
}

// A live stream keeps its newest event (a result larger than the whole
// budget is still delivered) but sheds older ones to stay in budget, and
// a stream its POST still serves is never dropped.
func TestRetainedBytesTrimLiveStream(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{Logger: quiet})
	h := NewHandler(srv, &HandlerOptions{Logger: quiet, MaxRetainedBytes: 1000})
	s := h.newSession("s")
	if e := h.register(s, true); e != nil {
		t.Fatal(e.err)
	}
	t.Cleanup(s.end)
	m, _ := parseMessage([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"p"}}}`))
	p, e := s.expect(m, true)
	if e != nil {
		t.Fatal(e.err)
	}
	for i := range 20 {
		_ = s.WriteFrame(fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":%d,"message":%q}}`, i, strings.Repeat("y", 200)))
	}
	if _, bytes := h.Retained("s"); bytes > 1000 {
		t.Fatalf("a live stream holds %d bytes over a 1000-byte budget", bytes)
	}
	_ = s.WriteFrame(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"result":{"text":%q}}`, strings.Repeat("z", 5000)))
	evs, done, closed := p.stream.since(0)
	if closed || !done || len(evs) != 1 || !strings.Contains(string(evs[0].data), "zzzz") {
		t.Fatalf("the live stream lost its result: %d events, done %v, closed %v", len(evs), done, closed)
	}
}

// Ids a client sends reach a store only in the form this server makes.
func TestValidID(t *testing.T) {
	sid := newSessionID()
	for _, c := range []struct {
		id     string
		stream bool
		ok     bool
	}{
		{sid, false, true},
		{sid[:31], false, false},
		{sid + "0", false, false},
		{strings.ToUpper(sid), false, false},
		{strings.Repeat("z", 32), false, false},
		{"session:other", false, false},
		{strings.Repeat("a", 1<<20), false, false},
		{sid[:8] + "-12", true, true},
		{sid[:8] + "-", true, false},
		{sid[:8] + "-1x", true, false},
		{sid[:8] + "-" + strings.Repeat("9", 20), true, false},
		{"12", true, false},
		{"0", true, false},
		{"abcdefgh-1", true, false},
		{sid[:8] + "-1:2", true, false},
	} {
		if got := validID(c.id, c.stream); got != c.ok {
			t.Errorf("validID(%.40q, %v) = %v, want %v", c.id, c.stream, got, c.ok)
		}
	}
}
