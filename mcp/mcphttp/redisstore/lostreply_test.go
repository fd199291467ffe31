package redisstore

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/mcp/mcphttp/redisstore/internal/redistest"
)

// lostReplyProxy is a TCP proxy to a Redis that, once armed, passes the
// next script call (EVALSHA or EVAL) to Redis, drops its reply and
// closes the connection: Redis ran the script, and the client cannot
// know it (a connection reset, a failover, a reply lost to a timeout).
type lostReplyProxy struct {
	addr  string
	armed atomic.Bool
}

func newLostReplyProxy(t *testing.T, socket string) *lostReplyProxy {
	t.Helper()
	p := &lostReplyProxy{}
	p.addr = startRedisProxy(t, socket, func() (toRedis, toClient hook) {
		var lost atomic.Bool // this connection's next reply is lost
		toRedis = func(b []byte) verdict {
			// Set before the call reaches Redis, so before its reply.
			if bytes.Contains(bytes.ToLower(b), []byte("eval")) && p.armed.CompareAndSwap(true, false) {
				lost.Store(true)
			}
			return pass
		}
		toClient = func([]byte) verdict {
			if lost.Load() {
				return cut
			}
			return pass
		}
		return toRedis, toClient
	})
	return p
}

// A session's append runs at most once per call: when its reply is lost,
// go-redis must not send it again (it retries a command after its
// connection closed or its read timed out, by default three times), or
// the record holds the state change twice, every replica applying it
// twice, and the record's bounds counting it twice. The call fails
// instead, and the Handler looks in the record for what the store did
// (findAppendedLocked).
func TestRedisSessionAppendAfterALostReplyIsNotRepeated(t *testing.T) {
	r := redistest.Start(t)
	p := newLostReplyProxy(t, r.Socket)
	st := open(t, "redis://"+p.addr+"/0", nil)
	ctx := context.Background()
	if err := st.Sessions.Create(ctx, "s1", []byte(`{"initialize":{}}`), time.Minute); err != nil {
		t.Fatal(err)
	}
	// The first append also loads the script: the armed one is a single
	// EVALSHA that runs.
	if _, err := st.Sessions.Append(ctx, "s1", []byte(`{"method":"notifications/initialized"}`), time.Minute); err != nil {
		t.Fatal(err)
	}
	p.armed.Store(true)
	n, err := st.Sessions.Append(ctx, "s1", []byte(`{"method":"logging/setLevel"}`), time.Minute)
	if p.armed.Load() {
		t.Fatal("the proxy saw no script call")
	}
	if l, lerr := st.client.LLen(ctx, st.key("session", "s1")).Result(); lerr != nil || l != 3 {
		t.Fatalf("after an append whose reply was lost (Append: %d, %v), the record holds %d messages (%v), want 3: the script ran again", n, err, l, lerr)
	}

}

// An event append whose reply is lost is sent again by go-redis, as a
// read would be (failing it instead would stop the Handler storing
// events for 30 s), so the append must be idempotent: run twice, it
// stores the event once, or a client resuming with Last-Event-ID gets
// it twice and the stream's byte count counts it twice.
func TestRedisEventAppendAfterALostReplyIsStoredOnce(t *testing.T) {
	r := redistest.Start(t)
	p := newLostReplyProxy(t, r.Socket)
	st := open(t, "redis://"+p.addr+"/0", nil)
	ctx := context.Background()
	evs := []mcphttp.StoredEvent{
		{N: 1, Data: []byte(`{"method":"notifications/progress"}`)},
		{N: 2, Data: []byte(`{"id":1,"result":{}}`)},
	}
	// The first append also loads the script: the armed one is a single
	// EVALSHA that runs.
	if err := st.Events.Append(ctx, "s1", "x", evs[0], false, time.Minute); err != nil {
		t.Fatal(err)
	}
	p.armed.Store(true)
	if err := st.Events.Append(ctx, "s1", "x", evs[1], true, time.Minute); err != nil {
		t.Fatalf("an append whose reply was lost, sent again: %v", err)
	}
	if p.armed.Load() {
		t.Fatal("the proxy saw no script call")
	}
	k := st.key("stream", "s1", "x")
	stored, err := st.client.LRange(ctx, k, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != 2 {
		t.Fatalf("the stream holds %d events, want 2: the event was appended again\n%q", len(stored), stored)
	}
	got, final, err := st.Events.Replay(ctx, "s1", "x", 0)
	if err != nil || !final || len(got) != 2 || got[0].N != 1 || got[1].N != 2 {
		t.Fatalf("Replay: %d events %v, final %v, %v; want events 1 and 2, final", len(got), got, final, err)
	}
	size := len(stored[0]) + len(stored[1])
	if c, err := st.client.HGet(ctx, st.key("streambytes", "s1"), k).Int(); err != nil || c != size {
		t.Fatalf("the stream's byte count is %d (%v), want %d", c, err, size)
	}
}

// A key rotation whose reply is lost is sent again by go-redis: the
// retry finds the key it added not sealing yet, and must take it for its
// own rather than report ErrRotateTooSoon for a rotation that was done.
func TestRedisKeyringRotateAfterALostReplySucceeds(t *testing.T) {
	r := redistest.Start(t)
	p := newLostReplyProxy(t, r.Socket)
	st := open(t, "redis://"+p.addr+"/0", &Options{Refresh: time.Hour})
	ctx := context.Background()
	// Loaded, so that the armed call is a single EVALSHA that runs, not
	// one that Redis refuses with NOSCRIPT.
	if err := rotateKey.Load(ctx, st.client).Err(); err != nil {
		t.Fatal(err)
	}
	p.armed.Store(true)
	err := st.Keyring.Rotate(ctx)
	if p.armed.Load() {
		t.Fatal("the proxy saw no script call")
	}
	if err != nil {
		t.Fatalf("a rotation whose reply was lost, sent again: %v", err)
	}
	if n, err := st.client.LLen(ctx, st.key("keys")).Result(); err != nil || n != 2 {
		t.Fatalf("after one rotation Redis holds %d keys (%v), want 2", n, err)
	}
	if keys := st.Keyring.StateKeys(); len(keys) != 2 {
		t.Fatalf("after one rotation the keyring accepts %d keys, want 2", len(keys))
	}
}

// The byte count a stream's appends keep in streambytes:<session> is the
// bytes the stream holds, whatever happens to the stream between appends:
// it expires (its count outliving it in the hash, refreshed by the
// session's other streams), it is deleted for MaxStreams and its writer
// appends to it again, the hash expires before it (a replica with a
// shorter RetainFor). Were it to drift, a stream would pass
// MaxEventBytes, or be trimmed below it.
func TestRedisStreamByteCountsFollowTheStreams(t *testing.T) {
	r := redistest.Start(t)
	const maxBytes = 400
	st := open(t, r.URL(), &Options{MaxEvents: 5, MaxEventBytes: maxBytes, MaxStreams: 3})
	ctx := context.Background()
	rnd := rand.New(rand.NewPCG(1, 2))
	streams := []string{"x1", "x2", "x3", "x4", "x5"}
	next := map[string]int{}
	for op := range 400 {
		s := streams[rnd.IntN(len(streams))]
		ttl := time.Minute
		if rnd.IntN(4) == 0 {
			ttl = 30 * time.Millisecond
		}
		if rnd.IntN(20) == 0 {
			time.Sleep(40 * time.Millisecond)
		}
		next[s]++
		data := []byte(`"` + strings.Repeat("x", rnd.IntN(180)) + `"`)
		if err := st.Events.Append(ctx, "s1", s, mcphttp.StoredEvent{N: next[s], Data: data}, false, ttl); err != nil {
			t.Fatal(err)
		}
		counts, err := st.client.HGetAll(ctx, st.key("streambytes", "s1")).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range streams {
			k := st.key("stream", "s1", s)
			evs, err := st.client.LRange(ctx, k, 0, -1).Result()
			if err != nil {
				t.Fatal(err)
			}
			total := 0
			for _, e := range evs {
				total += len(e)
			}
			if len(evs) > 1 && total > maxBytes {
				t.Fatalf("op %d: stream %s holds %d bytes in %d events, past MaxEventBytes %d", op, s, total, len(evs), maxBytes)
			}
			c, ok := counts[k]
			if ok && len(evs) > 0 && c != strconv.Itoa(total) {
				t.Fatalf("op %d: stream %s holds %d bytes, its count says %s", op, s, total, c)
			}
		}
	}
}
