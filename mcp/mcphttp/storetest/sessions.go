package storetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// long is a ttl no check outlives.
const long = time.Minute

// expiryTTL is the ttl of the checks that wait for an entry to expire:
// short, but long enough for the calls that must see the entry before it
// expires to make it on a loaded machine.
const expiryTTL = time.Second

// expiryWait bounds the wait for an entry to expire: far past expiryTTL,
// for a store that frees expired entries lazily or on a coarse clock.
const expiryWait = 10 * time.Second

// newID returns an ID no other check uses, with prefix to tell checks
// apart in a store's keys.
func newID(prefix string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "storetest-" + prefix + "-" + hex.EncodeToString(b)
}

// TestSessionStore checks s against the SessionStore contract:
//   - Load of a session never created is mcphttp.ErrNotFound;
//   - Create starts a session with its head at position 1, in place of
//     what was held under its id; Append returns each further message's
//     position, and Load returns the messages in that order, as copies:
//     neither the caller's buffer nor the slice Load returned can change
//     what is stored;
//   - Delete forgets a session, deleting one not held is no error, and a
//     session created again after its Delete starts again at 1;
//   - Append to a session not held (never created, deleted, expired) is
//     mcphttp.ErrNotFound and stores nothing, also when appends race the
//     session's Delete: no record without its head is left behind;
//   - mcphttp.MaxStateMessages and mcphttp.MaxStateBytes hold in the
//     store: the message past either is refused with
//     mcphttp.ErrRecordFull and not stored, however many appenders race;
//   - concurrent Appends to one session each get a position of their own,
//     and the record holds each message at its position;
//   - a session expires ttl after its Create, its last Append or a Load
//     with a ttl, and a Load with ttl 0 leaves that expiry as it is.
func TestSessionStore(t *testing.T, s mcphttp.SessionStore) {
	t.Helper()
	ctx := context.Background()

	t.Run("LoadUnknown", func(t *testing.T) {
		if msgs, err := s.Load(ctx, newID("unknown"), long); !errors.Is(err, mcphttp.ErrNotFound) {
			t.Fatalf("Load of a session never created: %q, %v; want ErrNotFound", msgs, err)
		}
		if msgs, err := s.Load(ctx, newID("unknown"), 0); !errors.Is(err, mcphttp.ErrNotFound) {
			t.Fatalf("Load with ttl 0 of a session never created: %q, %v; want ErrNotFound", msgs, err)
		}
	})

	t.Run("AppendAndLoadInOrder", func(t *testing.T) {
		id := newID("order")
		want := [][]byte{[]byte(`{"a":1}`), []byte(`{"b":2}`), []byte(`{"c":3}`)}
		mustCreate(t, s, id, want[0], long)
		for i, m := range want[1:] {
			if n, err := s.Append(ctx, id, m, long); err != nil || n != i+2 {
				t.Fatalf("Append %d: position %d, %v; want %d", i+1, n, err, i+2)
			}
		}
		mustLoad(t, s, id, want)
	})

	t.Run("Copies", func(t *testing.T) {
		id := newID("copies")
		head := []byte(`{"h":1}`)
		mustCreate(t, s, id, head, long)
		buf := []byte(`{"x":1}`)
		if _, err := s.Append(ctx, id, buf, long); err != nil {
			t.Fatal(err)
		}
		copy(head, `{"g":2}`) // the caller reuses its buffers
		copy(buf, `{"y":2}`)
		got, err := s.Load(ctx, id, long)
		if err != nil || len(got) != 2 {
			t.Fatalf("Load: %q, %v", got, err)
		}
		got[1][2] = 'z' // the caller changes what Load returned
		got[0] = nil
		mustLoad(t, s, id, [][]byte{[]byte(`{"h":1}`), []byte(`{"x":1}`)})
	})

	t.Run("Delete", func(t *testing.T) {
		id := newID("delete")
		if err := s.Delete(ctx, id); err != nil {
			t.Fatalf("Delete of a session not held: %v", err)
		}
		mustCreate(t, s, id, []byte(`{}`), long)
		if _, err := s.Append(ctx, id, []byte(`{}`), long); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
		if msgs, err := s.Load(ctx, id, long); !errors.Is(err, mcphttp.ErrNotFound) {
			t.Fatalf("Load after Delete: %q, %v; want ErrNotFound", msgs, err)
		}
		mustCreate(t, s, id, []byte(`{"again":true}`), long)
		if n, err := s.Append(ctx, id, []byte(`{}`), long); err != nil || n != 2 {
			t.Fatalf("Append after the session was created again: position %d, %v; want 2", n, err)
		}
		mustLoad(t, s, id, [][]byte{[]byte(`{"again":true}`), []byte(`{}`)})
	})

	t.Run("CreateReplaces", func(t *testing.T) {
		id := newID("replace")
		mustCreate(t, s, id, []byte(`{"first":1}`), long)
		if _, err := s.Append(ctx, id, []byte(`{}`), long); err != nil {
			t.Fatal(err)
		}
		// As a Create sent again after its reply was lost would.
		mustCreate(t, s, id, []byte(`{"first":1}`), long)
		mustLoad(t, s, id, [][]byte{[]byte(`{"first":1}`)})
	})

	t.Run("AppendToNoSession", func(t *testing.T) {
		id := newID("nosession")
		if n, err := s.Append(ctx, id, []byte(`{"orphan":1}`), long); !errors.Is(err, mcphttp.ErrNotFound) {
			t.Fatalf("Append to a session never created: position %d, %v; want ErrNotFound", n, err)
		}
		mustCreate(t, s, id, []byte(`{}`), long)
		if err := s.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
		if n, err := s.Append(ctx, id, []byte(`{"orphan":2}`), long); !errors.Is(err, mcphttp.ErrNotFound) {
			t.Fatalf("Append to a deleted session: position %d, %v; want ErrNotFound", n, err)
		}
		if msgs, err := s.Load(ctx, id, 0); !errors.Is(err, mcphttp.ErrNotFound) {
			t.Fatalf("after Appends refused for want of a session the store holds %q, %v; want ErrNotFound", msgs, err)
		}
	})

	t.Run("AppendsRacingDelete", func(t *testing.T) {
		// Appenders keep appending while the session is deleted: each
		// append lands before the Delete or is refused, and none
		// re-creates the record without its head. A store that checks
		// the session and then appends, in two steps, leaves one now
		// and then.
		const appenders, rounds = 4, 20
		for round := range rounds {
			id := newID("racing")
			mustCreate(t, s, id, []byte(`{"head":true}`), long)
			var wg sync.WaitGroup
			start := make(chan struct{})
			errs := make(chan error, appenders)
			for w := range appenders {
				wg.Go(func() {
					<-start
					for i := 0; ; i++ {
						_, err := s.Append(ctx, id, fmt.Appendf(nil, `{"w":%d,"i":%d}`, w, i), long)
						switch {
						case errors.Is(err, mcphttp.ErrNotFound):
							return
						case errors.Is(err, mcphttp.ErrRecordFull):
							errs <- errors.New("appends went on after the Delete until the record was full: they re-created it")
							return
						case err != nil:
							errs <- err
							return
						}
					}
				})
			}
			close(start)
			if err := s.Delete(ctx, id); err != nil {
				t.Fatal(err)
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatalf("round %d: Append racing Delete: %v, want success or ErrNotFound", round, err)
			}
			if msgs, err := s.Load(ctx, id, 0); !errors.Is(err, mcphttp.ErrNotFound) {
				t.Fatalf("round %d: after appends that raced the session's Delete the store holds %d messages, the first %q (%v); want ErrNotFound",
					round, len(msgs), first(msgs), err)
			}
		}
	})

	t.Run("BoundedInMessages", func(t *testing.T) {
		id := newID("messages")
		mustCreate(t, s, id, []byte(`{}`), long)
		for i := 1; i < mcphttp.MaxStateMessages; i++ {
			if _, err := s.Append(ctx, id, []byte(`{}`), long); err != nil {
				t.Fatalf("message %d of %d: %v", i+1, mcphttp.MaxStateMessages, err)
			}
		}
		if n, err := s.Append(ctx, id, []byte(`{}`), long); !errors.Is(err, mcphttp.ErrRecordFull) {
			t.Fatalf("Append past MaxStateMessages (%d): position %d, %v; want ErrRecordFull", mcphttp.MaxStateMessages, n, err)
		}
		if msgs, err := s.Load(ctx, id, long); err != nil || len(msgs) != mcphttp.MaxStateMessages {
			t.Fatalf("after a refused Append the record holds %d messages (%v), want %d", len(msgs), err, mcphttp.MaxStateMessages)
		}
	})

	t.Run("BoundedInBytes", func(t *testing.T) {
		// Appenders race to fill one record with messages of a third of
		// what its head leaves: three fit whoever wins, a fourth never
		// does.
		id := newID("bytes")
		head := []byte(`{}`)
		if err := s.Create(ctx, id, make([]byte, mcphttp.MaxStateBytes+1), long); !errors.Is(err, mcphttp.ErrRecordFull) {
			t.Fatalf("Create with a head past MaxStateBytes (%d): %v; want ErrRecordFull", mcphttp.MaxStateBytes, err)
		}
		mustCreate(t, s, id, head, long)
		const appenders = 8
		size := (mcphttp.MaxStateBytes - len(head)) / 3
		var wg sync.WaitGroup
		errs := make([]error, appenders)
		for i := range appenders {
			msg := []byte(`"` + strings.Repeat(string(rune('a'+i)), size-2) + `"`)
			wg.Go(func() { _, errs[i] = s.Append(ctx, id, msg, long) })
		}
		wg.Wait()
		stored := 0
		for i, err := range errs {
			switch {
			case err == nil:
				stored++
			case !errors.Is(err, mcphttp.ErrRecordFull):
				t.Fatalf("Append %d: %v, want success or ErrRecordFull", i, err)
			}
		}
		msgs, err := s.Load(ctx, id, long)
		if err != nil {
			t.Fatal(err)
		}
		total := 0
		for _, m := range msgs {
			total += len(m)
		}
		if stored != 3 || len(msgs) != 4 || total > mcphttp.MaxStateBytes {
			t.Fatalf("%d appenders of %d bytes each: %d succeeded, the record holds %d messages of %d bytes; want its head and 3 within MaxStateBytes (%d)",
				appenders, size, stored, len(msgs), total, mcphttp.MaxStateBytes)
		}
	})

	t.Run("ConcurrentAppends", func(t *testing.T) {
		id := newID("concurrent")
		head := []byte(`{"head":true}`)
		mustCreate(t, s, id, head, long)
		const writers, each = 8, 8
		var wg sync.WaitGroup
		var mu sync.Mutex
		at := map[int][]byte{}
		failed := make(chan error, writers*each)
		for w := range writers {
			wg.Go(func() {
				for i := range each {
					msg := fmt.Appendf(nil, `{"w":%d,"i":%d}`, w, i)
					n, err := s.Append(ctx, id, msg, long)
					if err != nil {
						failed <- err
						return
					}
					mu.Lock()
					if prev, dup := at[n]; dup {
						failed <- fmt.Errorf("position %d given to %s and to %s", n, prev, msg)
					}
					at[n] = msg
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		close(failed)
		for err := range failed {
			t.Fatal(err)
		}
		want := make([][]byte, 1+writers*each)
		want[0] = head
		for n, msg := range at {
			if n < 2 || n > len(want) {
				t.Fatalf("position %d out of 2..%d", n, len(want))
			}
			want[n-1] = msg
		}
		mustLoad(t, s, id, want)
	})

	t.Run("Expiry", func(t *testing.T) {
		t.Parallel()
		id := newID("expiry")
		mustCreate(t, s, id, []byte(`{}`), expiryTTL)
		// Loads with ttl 0 all along: none of them may keep the session.
		waitGone(t, func() error { _, err := s.Load(ctx, id, 0); return err })
	})

	t.Run("LoadKeepsTheSession", func(t *testing.T) {
		t.Parallel()
		id := newID("keep")
		start := time.Now()
		mustCreate(t, s, id, []byte(`{}`), expiryTTL)
		if _, err := s.Load(ctx, id, long); err != nil {
			if time.Since(start) >= expiryTTL {
				t.Fatalf("Load %v after the Append: %v (the machine is too slow for this check's ttl of %v)", time.Since(start), err, expiryTTL)
			}
			t.Fatal(err)
		}
		// Time, not another goroutine, is what this waits for.
		time.Sleep(time.Until(start.Add(2 * expiryTTL)))
		if _, err := s.Load(ctx, id, 0); err != nil {
			t.Fatalf("a session loaded with ttl %v expired with the ttl of its Append (%v): %v", long, expiryTTL, err)
		}
	})
}

// mustCreate creates session id with head.
func mustCreate(t *testing.T, s mcphttp.SessionStore, id string, head []byte, ttl time.Duration) {
	t.Helper()
	if err := s.Create(context.Background(), id, head, ttl); err != nil {
		t.Fatalf("Create: %v", err)
	}
}

// first is msgs' first message, or nil.
func first(msgs [][]byte) []byte {
	if len(msgs) == 0 {
		return nil
	}
	return msgs[0]
}

// mustLoad checks that session id holds want.
func mustLoad(t *testing.T, s mcphttp.SessionStore, id string, want [][]byte) {
	t.Helper()
	got, err := s.Load(context.Background(), id, long)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("Load: %d messages, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("Load: message %d is %s, want %s", i+1, got[i], want[i])
		}
	}
}

// waitGone calls load until it reports mcphttp.ErrNotFound, failing on
// any other error or after expiryWait.
func waitGone(t *testing.T, load func() error) {
	t.Helper()
	deadline := time.Now().Add(expiryWait)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		err := load()
		switch {
		case errors.Is(err, mcphttp.ErrNotFound):
			return
		case err != nil:
			t.Fatalf("waiting for expiry: %v", err)
		case time.Now().After(deadline):
			t.Fatalf("still held %v after its ttl of %v", expiryWait, expiryTTL)
		}
		<-tick.C
	}
}
