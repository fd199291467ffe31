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
//   - Load of a session never appended is mcphttp.ErrNotFound;
//   - Append returns each message's position from 1, and Load returns the
//     messages in that order, as copies: neither the caller's buffer nor
//     the slice Load returned can change what is stored;
//   - Delete forgets a session, deleting one not held is no error, and a
//     session appended to after its Delete starts again at 1;
//   - mcphttp.MaxStateMessages and mcphttp.MaxStateBytes hold in the
//     store: the message past either is refused with
//     mcphttp.ErrRecordFull and not stored, however many appenders race;
//   - concurrent Appends to one session each get a position of their own,
//     and the record holds each message at its position;
//   - a session expires ttl after its last Append or Load with a ttl, and
//     a Load with ttl 0 leaves that expiry as it is.
func TestSessionStore(t *testing.T, s mcphttp.SessionStore) {
	t.Helper()
	ctx := context.Background()

	t.Run("LoadUnknown", func(t *testing.T) {
		if msgs, err := s.Load(ctx, newID("unknown"), long); !errors.Is(err, mcphttp.ErrNotFound) {
			t.Fatalf("Load of a session never appended: %q, %v; want ErrNotFound", msgs, err)
		}
		if msgs, err := s.Load(ctx, newID("unknown"), 0); !errors.Is(err, mcphttp.ErrNotFound) {
			t.Fatalf("Load with ttl 0 of a session never appended: %q, %v; want ErrNotFound", msgs, err)
		}
	})

	t.Run("AppendAndLoadInOrder", func(t *testing.T) {
		id := newID("order")
		want := [][]byte{[]byte(`{"a":1}`), []byte(`{"b":2}`), []byte(`{"c":3}`)}
		for i, m := range want {
			if n, err := s.Append(ctx, id, m, long); err != nil || n != i+1 {
				t.Fatalf("Append %d: position %d, %v; want %d", i+1, n, err, i+1)
			}
		}
		mustLoad(t, s, id, want)
	})

	t.Run("Copies", func(t *testing.T) {
		id := newID("copies")
		buf := []byte(`{"x":1}`)
		if _, err := s.Append(ctx, id, buf, long); err != nil {
			t.Fatal(err)
		}
		copy(buf, `{"y":2}`) // the caller reuses its buffer
		got, err := s.Load(ctx, id, long)
		if err != nil || len(got) != 1 {
			t.Fatalf("Load: %q, %v", got, err)
		}
		got[0][2] = 'z' // the caller changes what Load returned
		got[0] = nil
		mustLoad(t, s, id, [][]byte{[]byte(`{"x":1}`)})
	})

	t.Run("Delete", func(t *testing.T) {
		id := newID("delete")
		if err := s.Delete(ctx, id); err != nil {
			t.Fatalf("Delete of a session not held: %v", err)
		}
		for range 2 {
			if _, err := s.Append(ctx, id, []byte(`{}`), long); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
		if msgs, err := s.Load(ctx, id, long); !errors.Is(err, mcphttp.ErrNotFound) {
			t.Fatalf("Load after Delete: %q, %v; want ErrNotFound", msgs, err)
		}
		if n, err := s.Append(ctx, id, []byte(`{"again":true}`), long); err != nil || n != 1 {
			t.Fatalf("Append after Delete: position %d, %v; want 1", n, err)
		}
		mustLoad(t, s, id, [][]byte{[]byte(`{"again":true}`)})
	})

	t.Run("BoundedInMessages", func(t *testing.T) {
		id := newID("messages")
		for i := range mcphttp.MaxStateMessages {
			if _, err := s.Append(ctx, id, []byte(`{}`), long); err != nil {
				t.Fatalf("Append %d of %d: %v", i+1, mcphttp.MaxStateMessages, err)
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
		// the bound: three fit whoever wins, a fourth never does.
		id := newID("bytes")
		const appenders = 8
		var wg sync.WaitGroup
		errs := make([]error, appenders)
		for i := range appenders {
			msg := []byte(`"` + strings.Repeat(string(rune('a'+i)), mcphttp.MaxStateBytes/3-2) + `"`)
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
		if stored != 3 || len(msgs) != 3 || total > mcphttp.MaxStateBytes {
			t.Fatalf("%d appenders of %d bytes each: %d succeeded, the record holds %d messages of %d bytes; want 3 within MaxStateBytes (%d)",
				appenders, mcphttp.MaxStateBytes/3, stored, len(msgs), total, mcphttp.MaxStateBytes)
		}
	})

	t.Run("ConcurrentAppends", func(t *testing.T) {
		id := newID("concurrent")
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
		want := make([][]byte, writers*each)
		for n, msg := range at {
			if n < 1 || n > len(want) {
				t.Fatalf("position %d out of 1..%d", n, len(want))
			}
			want[n-1] = msg
		}
		mustLoad(t, s, id, want)
	})

	t.Run("Expiry", func(t *testing.T) {
		t.Parallel()
		id := newID("expiry")
		if _, err := s.Append(ctx, id, []byte(`{}`), expiryTTL); err != nil {
			t.Fatal(err)
		}
		// Loads with ttl 0 all along: none of them may keep the session.
		waitGone(t, func() error { _, err := s.Load(ctx, id, 0); return err })
	})

	t.Run("LoadKeepsTheSession", func(t *testing.T) {
		t.Parallel()
		id := newID("keep")
		start := time.Now()
		if _, err := s.Append(ctx, id, []byte(`{}`), expiryTTL); err != nil {
			t.Fatal(err)
		}
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
