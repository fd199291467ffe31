package redisstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/mcp/mcphttp/redisstore/internal/redistest"
	"github.com/winbridge/winbridge/mcp/mcphttp/replicatest"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestMain(m *testing.M) {
	// go-redis logs its reconnection attempts; the restart test makes many.
	redis.SetLogger(discardLogger{})
	os.Exit(m.Run())
}

type discardLogger struct{}

func (discardLogger) Printf(context.Context, string, ...any) {}

func open(t *testing.T, url string, o *Options) *Stores {
	t.Helper()
	if o == nil {
		o = &Options{}
	}
	o.Logger = quiet
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := Open(ctx, url, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// replicas serves three replicas, each with its own Server, Handler and
// connection to one Redis: as three processes would.
func replicas(t *testing.T, url string) ([]*mcp.Server, []string) {
	t.Helper()
	var srvs []*mcp.Server
	var urls []string
	for range 3 {
		st := open(t, url, nil)
		so := &mcp.ServerOptions{Logger: quiet}
		st.ServerOptions(so)
		srv := replicatest.Server(so)
		ho := &mcphttp.HandlerOptions{Logger: quiet}
		st.HandlerOptions(ho)
		h := mcphttp.NewHandler(srv, ho)
		ts := httptest.NewServer(h)
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = h.Shutdown(ctx)
			ts.Close()
		})
		srvs = append(srvs, srv)
		urls = append(urls, ts.URL)
	}
	return srvs, urls
}

func TestRedisLegacySession(t *testing.T) {
	r := redistest.Start(t)
	_, urls := replicas(t, r.URL())
	replicatest.LegacySession(t, urls)
}

// A Last-Event-ID past a stream's last event is refused, also by a
// replica that resumes the stream from Redis.
func TestRedisResumeBeyondTheLastEvent(t *testing.T) {
	r := redistest.Start(t)
	_, urls := replicas(t, r.URL())
	replicatest.ResumeBeyond(t, urls[:2], replicatest.Count)
}

func TestRedisResumeElsewhere(t *testing.T) {
	r := redistest.Start(t)
	_, urls := replicas(t, r.URL())
	replicatest.ResumeElsewhere(t, urls, replicatest.Count, nil)
}

func TestRedisListenAcross(t *testing.T) {
	r := redistest.Start(t)
	srvs, urls := replicas(t, r.URL())
	replicatest.ListenAcross(t, urls, "test://watched", func() {
		srvs[2].ResourceUpdated(context.Background(), "test://watched")
	})
}

func TestRedisRequestStateAcross(t *testing.T) {
	r := redistest.Start(t)
	_, urls := replicas(t, r.URL())
	replicatest.RequestStateAcross(t, urls, replicatest.Ask)
}

func TestRedisAnswerElsewhere(t *testing.T) {
	r := redistest.Start(t)
	_, urls := replicas(t, r.URL())
	replicatest.AnswerElsewhere(t, urls, replicatest.Greet)
}

func TestRedisSubscribeElsewhere(t *testing.T) {
	r := redistest.Start(t)
	srvs, urls := replicas(t, r.URL())
	replicatest.SubscribeElsewhere(t, urls, "test://watched", func() {
		srvs[2].ResourceUpdated(context.Background(), "test://watched")
	})
}

// afterLoadSessions is a session store that, once its hook is armed,
// runs it after the next Load has read the record: the hook is shared by
// the replicas' stores, and taken by whichever loads first.
type afterLoadSessions struct {
	mcphttp.SessionStore
	hook *atomic.Pointer[func()]
}

func (st *afterLoadSessions) Load(ctx context.Context, id string, ttl time.Duration) ([][]byte, error) {
	msgs, err := st.SessionStore.Load(ctx, id, ttl)
	if f := st.hook.Swap(nil); f != nil {
		(*f)()
	}
	return msgs, err
}

func TestRedisConcurrentStateChanges(t *testing.T) {
	r := redistest.Start(t)
	// No Relay: a replica catches up only as a request comes in, so the
	// hook's Load is the next request's.
	var hook atomic.Pointer[func()]
	var urls []string
	for range 3 {
		st := &afterLoadSessions{SessionStore: open(t, r.URL(), nil).Sessions, hook: &hook}
		srv := replicatest.Server(&mcp.ServerOptions{Logger: quiet})
		h := mcphttp.NewHandler(srv, &mcphttp.HandlerOptions{Logger: quiet, Sessions: st})
		ts := httptest.NewServer(h)
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = h.Shutdown(ctx)
			ts.Close()
		})
		urls = append(urls, ts.URL)
	}
	replicatest.ConcurrentLevels(t, urls, func(f func()) { hook.Store(&f) })
}

// Every key the stores write is bounded: it expires, and a stream holds
// at most MaxEvents events.
func TestRedisKeysAreBounded(t *testing.T) {
	r := redistest.Start(t)
	st := open(t, r.URL(), &Options{MaxEvents: 3})
	ctx := context.Background()
	if err := st.Sessions.Create(ctx, "s1", []byte(`{"a":1}`), time.Minute); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 10; n++ {
		if err := st.Events.Append(ctx, "s1", "x1", mcphttp.StoredEvent{N: n, Data: []byte(fmt.Sprintf(`{"n":%d}`, n))}, n == 10, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	evs, final, err := st.Events.Replay(ctx, "s1", "x1", 0)
	if err != nil || !final || len(evs) != 3 || evs[0].N != 8 || evs[2].N != 10 {
		t.Fatalf("replay: %+v final=%v err=%v; want events 8-10, final", evs, final, err)
	}
	keys, err := st.client.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		ttl, err := st.client.PTTL(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		n, _ := st.client.LLen(ctx, k).Result()
		switch {
		case k == st.key("keys"):
			if n > int64(st.opts.Keep) {
				t.Errorf("%s holds %d keys, Keep is %d", k, n, st.opts.Keep)
			}
		case ttl <= 0:
			t.Errorf("key %s does not expire (PTTL %v)", k, ttl)
		}
	}
	if _, _, err := st.Events.Replay(ctx, "s1", "nope", 0); !errors.Is(err, mcphttp.ErrNotFound) {
		t.Fatalf("replay of a stream never written: %v, want ErrNotFound", err)
	}
	if _, err := st.Sessions.Load(ctx, "nope", time.Minute); !errors.Is(err, mcphttp.ErrNotFound) {
		t.Fatalf("load of a session never written: %v, want ErrNotFound", err)
	}
}

// A rotated key is accepted by every replica before any seals with it,
// and the retired one stops being accepted.
func TestRedisKeyringRotation(t *testing.T) {
	r := redistest.Start(t)
	a := open(t, r.URL(), &Options{Refresh: time.Hour})
	b := open(t, r.URL(), &Options{Refresh: time.Hour})
	ctx := context.Background()
	first := a.Keyring.StateKeys()
	if len(first) != 1 || string(b.Keyring.StateKeys()[0]) != string(first[0]) {
		t.Fatal("two replicas did not start with the same key")
	}
	if err := a.Keyring.Rotate(ctx); err != nil {
		t.Fatal(err)
	}
	ka := a.Keyring.StateKeys()
	if len(ka) != 2 || string(ka[0]) != string(first[0]) {
		t.Fatal("a rotated key sealed before the other replicas could know it")
	}
	if err := b.Keyring.refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if len(b.Keyring.StateKeys()) != 2 {
		t.Fatal("B does not accept the staged key after a refresh")
	}
	// Make the staged key due, as 2×Refresh later would.
	list, _ := a.client.LRange(ctx, a.key("keys"), 0, -1).Result()
	_, k, _ := cutColon(list[0])
	a.client.LSet(ctx, a.key("keys"), 0, "1:"+k)
	_ = a.Keyring.refresh(ctx)
	if string(a.Keyring.StateKeys()[0]) == string(first[0]) {
		t.Fatal("the due key does not seal")
	}
	if err := a.Keyring.Rotate(ctx); err != nil {
		t.Fatal(err)
	}
	for _, k := range a.Keyring.StateKeys() {
		if string(k) == string(first[0]) {
			t.Fatal("a key beyond Keep is still accepted")
		}
	}
}

func cutColon(s string) (string, string, bool) {
	for i := range len(s) {
		if s[i] == ':' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// Redis restarted mid-run: while it is down, requests of a session get a
// clear 503 and nothing else; once it is back, the session (persisted)
// is served again and changes cross replicas again.
func TestRedisRestart(t *testing.T) {
	r := redistest.Start(t)
	srvs, urls := replicas(t, r.URL())
	sid := replicatest.Initialize(t, urls[0])
	replicatest.Sum(t, urls[1], sid, 2, 1, 2)
	r.Stop()
	resp := replicatest.Post(t, urls[2], sid, "2025-11-25", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, nil)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("with Redis down: status %d %s, want 503 with Retry-After", resp.StatusCode, b)
	}
	r.Restart()
	// go-redis reconnects on the next command: the first request may
	// still meet the broken connection of the pool, so poll with a
	// deadline for the first good answer.
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp := replicatest.Post(t, urls[2], sid, "2025-11-25", `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`, nil)
		st := resp.StatusCode
		resp.Body.Close()
		if st == http.StatusOK {
			break
		}
		if st != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("after the restart: status %d", st)
		}
	}
	replicatest.Sum(t, urls[0], sid, 5, 3, 4)
	// The bus resubscribes on its own; a listen stream on A hears C.
	replicatest.ListenAcross(t, urls, "test://watched", func() {
		srvs[2].ResourceUpdated(context.Background(), "test://watched")
	})
}

// A URL's password appears in no error of Open.
func TestOpenErrorsHidePassword(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, url := range []string{"redis://:s3cret@[::1", "redis://:s3cret@127.0.0.1:1/0", "unix://:s3cret@/nonexistent/sock"} {
		_, err := Open(ctx, url, &Options{Logger: quiet})
		if err == nil {
			t.Fatalf("Open %q succeeded", url)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Fatalf("Open's error shows the password: %v", err)
		}
	}
}

// A session's streams are bounded in number: a client that opens stream
// after stream keeps at most MaxStreams of them in Redis, the most
// recently started, and the index that bounds them expires too.
func TestRedisStreamsPerSession(t *testing.T) {
	r := redistest.Start(t)
	st := open(t, r.URL(), &Options{MaxStreams: 4})
	ctx := context.Background()
	for i := 1; i <= 10; i++ {
		for n := 1; n <= 2; n++ {
			if err := st.Events.Append(ctx, "s1", fmt.Sprint("x", i), mcphttp.StoredEvent{N: n, Data: []byte(`{}`)}, false, time.Minute); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := 1; i <= 10; i++ {
		_, _, err := st.Events.Replay(ctx, "s1", fmt.Sprint("x", i), 0)
		if kept := err == nil; kept != (i > 6) {
			t.Errorf("stream x%d of 10, MaxStreams 4: kept %v (%v)", i, kept, err)
		}
	}
	keys, err := st.client.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k == st.key("keys") {
			continue
		}
		if ttl, _ := st.client.PTTL(ctx, k).Result(); ttl <= 0 {
			t.Errorf("key %s does not expire", k)
		}
	}
	if n := len(keys); n > 4+3 {
		t.Errorf("%d keys for 4 streams, their index, their byte counts and the keyring: %q", n, keys)
	}
}

// A message on the Relay is a client's answer, as large as a POST body
// may be (32 MiB). Redis drops a pub/sub subscriber whose output buffer
// passes 32 MiB (client-output-buffer-limit pubsub), so one such answer
// would cut every replica's subscription, and the changes and answers
// of every other session published meanwhile would be lost. The Relay
// refuses it instead, and the subscriptions stay.
func TestRedisRelayKeepsSubscriptionsOnAHugeMessage(t *testing.T) {
	r := redistest.Start(t)
	st := open(t, r.URL(), nil)
	ctx := context.Background()
	subscriber := func() string {
		list, err := st.client.ClientList(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(list, "\n") {
			if strings.Contains(line, " sub=2 ") {
				id, _, _ := strings.Cut(line, " ")
				return id
			}
		}
		return ""
	}
	before := subscriber()
	if before == "" {
		t.Fatal("no subscribed connection")
	}
	err := st.Relay.Send(ctx, []byte(`{"msg":"`+strings.Repeat("x", 32<<20)+`"}`))
	if after := subscriber(); after != before {
		t.Fatalf("a %d MiB message on the Relay (Send: %v) cut the subscription: %s, then %q", 32, err, before, after)
	}
	if err == nil {
		t.Fatal("Send accepted a message larger than MaxRelayBytes")
	}
	// One at the bound still goes through.
	got := make(chan int, 1)
	stop := st.Relay.Receive(func(b []byte) {
		select {
		case got <- len(b):
		default:
		}
	})
	defer stop()
	if err := st.Relay.Send(ctx, make([]byte, DefaultMaxRelayBytes)); err != nil {
		t.Fatal(err)
	}
	if n := <-got; n != DefaultMaxRelayBytes {
		t.Fatalf("received %d bytes, sent %d", n, DefaultMaxRelayBytes)
	}
}

// Rotating again before the last rotated key seals is refused: it would
// retire the key that seals now before its successor does, and with it
// every replica's way to seal (or, with Keep 1, at the first rotation).
func TestRedisKeyringRotateTooSoon(t *testing.T) {
	r := redistest.Start(t)
	a := open(t, r.URL(), &Options{Refresh: time.Hour, Keep: 1})
	ctx := context.Background()
	first := a.Keyring.StateKeys()[0]
	if err := a.Keyring.Rotate(ctx); err != nil {
		t.Fatal(err)
	}
	if keys := a.Keyring.StateKeys(); len(keys) != 2 || string(keys[0]) != string(first) {
		t.Fatalf("after one rotation with Keep 1: %d keys, the first sealing: %v; want the old key sealing and the new one staged", len(keys), string(keys[0]) == string(first))
	}
	if err := a.Keyring.Rotate(ctx); !errors.Is(err, ErrRotateTooSoon) {
		t.Fatalf("a second rotation before the first key seals: %v, want ErrRotateTooSoon", err)
	}
	b := open(t, r.URL(), &Options{Refresh: time.Hour})
	if keys := b.Keyring.StateKeys(); len(keys) != 2 || string(keys[0]) != string(first) {
		t.Fatal("a replica started after the refused rotation does not seal with the old key")
	}
}

// Replay returns each event once, whatever the stream holds: an event
// stored twice (by an append run twice before appends skipped what the
// stream already held) is replayed once, the first copy.
func TestRedisReplayDropsDuplicates(t *testing.T) {
	r := redistest.Start(t)
	st := open(t, r.URL(), nil)
	ctx := context.Background()
	k := st.key("stream", "s1", "x")
	for _, e := range []string{`{"n":1,"d":"a"}`, `{"n":2,"d":"b"}`, `{"n":2,"d":"c"}`, `{"n":3,"d":"d"}`} {
		if err := st.client.RPush(ctx, k, e).Err(); err != nil {
			t.Fatal(err)
		}
	}
	got, _, err := st.Events.Replay(ctx, "s1", "x", 0)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range got {
		fmt.Fprintf(&b, "%d:%s ", e.N, e.Data)
	}
	if want := `1:"a" 2:"b" 3:"d" `; b.String() != want {
		t.Fatalf("Replay: %s, want %s", b.String(), want)
	}
}

// Load with ttl 0 reads a session without keeping it alive (a replica
// checks who opened it before it keeps it for a request), and without
// deleting it, as PEXPIRE 0 would.
func TestRedisLoadWithoutTTLLeavesExpiry(t *testing.T) {
	r := redistest.Start(t)
	st := open(t, r.URL(), nil)
	ctx := context.Background()
	if err := st.Sessions.Create(ctx, "s1", []byte(`{"a":1}`), time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := st.client.PExpire(ctx, st.key("session", "s1"), 30*time.Second).Err(); err != nil {
		t.Fatal(err)
	}
	if msgs, err := st.Sessions.Load(ctx, "s1", 0); err != nil || len(msgs) != 1 {
		t.Fatalf("Load with ttl 0: %q %v", msgs, err)
	}
	if ttl, err := st.client.PTTL(ctx, st.key("session", "s1")).Result(); err != nil || ttl > 30*time.Second || ttl <= 0 {
		t.Fatalf("after a Load with ttl 0 the session expires in %v (%v), want its 30 s left as they were", ttl, err)
	}
}

// A session's record is bounded in the store, checked with the append:
// a message beyond mcphttp.MaxStateBytes, or beyond
// mcphttp.MaxStateMessages messages, is refused with
// mcphttp.ErrRecordFull and not stored.
func TestRedisRecordIsBounded(t *testing.T) {
	r := redistest.Start(t)
	st := open(t, r.URL(), nil)
	ctx := context.Background()
	big := []byte(`"` + strings.Repeat("x", mcphttp.MaxStateBytes/2-2) + `"`) // two fill the record
	if err := st.Sessions.Create(ctx, "big", big, time.Minute); err != nil {
		t.Fatal(err)
	}
	for i, want := range []error{nil, mcphttp.ErrRecordFull} {
		n, err := st.Sessions.Append(ctx, "big", big, time.Minute)
		if !errors.Is(err, want) || (err == nil && n != i+2) {
			t.Fatalf("append %d of %d bytes: %d %v, want %v", i+1, len(big), n, err, want)
		}
	}
	if msgs, err := st.Sessions.Load(ctx, "big", time.Minute); err != nil || len(msgs) != 2 {
		t.Fatalf("after a refused append the record holds %d messages (%v), want 2", len(msgs), err)
	}
	if err := st.Sessions.Create(ctx, "many", []byte(`{}`), time.Minute); err != nil {
		t.Fatal(err)
	}
	for i := range mcphttp.MaxStateMessages - 1 {
		if _, err := st.Sessions.Append(ctx, "many", []byte(`{}`), time.Minute); err != nil {
			t.Fatalf("append %d: %v", i+1, err)
		}
	}
	if _, err := st.Sessions.Append(ctx, "many", []byte(`{}`), time.Minute); !errors.Is(err, mcphttp.ErrRecordFull) {
		t.Fatalf("append %d: %v, want ErrRecordFull", mcphttp.MaxStateMessages+1, err)
	}
}

// A stream is bounded in bytes as well as in events: by default
// DefaultMaxEventBytes, the oldest events going first, the newest kept
// whatever its size. A resume after an event trimmed for bytes gets what
// is left, as after one trimmed for count.
func TestRedisEventBytesAreBounded(t *testing.T) {
	r := redistest.Start(t)
	st := open(t, r.URL(), nil)
	ctx := context.Background()
	data := []byte(`"` + strings.Repeat("x", 256<<10) + `"`)
	for n := 1; n <= 20; n++ { // 5 MiB
		if err := st.Events.Append(ctx, "s1", "x1", mcphttp.StoredEvent{N: n, Data: data}, false, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	stored, err := st.client.LRange(ctx, st.key("stream", "s1", "x1"), 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, e := range stored {
		total += len(e)
	}
	if total > DefaultMaxEventBytes {
		t.Fatalf("the stream holds %d bytes in %d events, the bound is %d", total, len(stored), DefaultMaxEventBytes)
	}
	evs, _, err := st.Events.Replay(ctx, "s1", "x1", 1)
	if err != nil || len(evs) != len(stored) || evs[len(evs)-1].N != 20 || evs[0].N != 20-len(evs)+1 {
		t.Fatalf("a resume after a trimmed event: %d events (%v), want the newest %d", len(evs), err, len(stored))
	}
	// An event larger than the bound is kept, alone.
	small := open(t, r.URL(), &Options{Prefix: "small:", MaxEventBytes: 200})
	for n := 1; n <= 3; n++ {
		d := []byte(`"` + strings.Repeat("x", 60*n) + `"`)
		if err := small.Events.Append(ctx, "s1", "x1", mcphttp.StoredEvent{N: n, Data: d}, n == 3, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	if evs, final, _ := small.Events.Replay(ctx, "s1", "x1", 0); len(evs) != 1 || evs[0].N != 3 || !final {
		t.Fatalf("MaxEventBytes 200, events of about 80, 140 and 200 bytes: kept %d, final=%v; want the last alone", len(evs), final)
	}
	// A stream stored without its byte count (by an earlier version) is
	// counted as it is appended to.
	old := []byte(`{"n":1,"d":"` + strings.Repeat("x", 100) + `"}`)
	if err := small.client.RPush(ctx, small.key("stream", "s1", "x2"), old, old, old).Err(); err != nil {
		t.Fatal(err)
	}
	if err := small.Events.Append(ctx, "s1", "x2", mcphttp.StoredEvent{N: 4, Data: []byte(`{}`)}, false, time.Minute); err != nil {
		t.Fatal(err)
	}
	if n, _ := small.client.LLen(ctx, small.key("stream", "s1", "x2")).Result(); n != 2 {
		t.Fatalf("a stream of 3 uncounted events of %d bytes, MaxEventBytes 200, after an append: %d events, want 2", len(old), n)
	}
}
