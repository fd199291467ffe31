package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// Limits are the bounds an EventStore under test was configured with.
// Small ones make the checks quick: each writes a few times each bound.
type Limits struct {
	MaxEvents     int // events kept per stream
	MaxEventBytes int // bytes of events kept per stream, as the store counts them
	MaxStreams    int // streams kept per session
}

// TestEventStore checks s, configured with limits l, against the
// EventStore contract:
//   - Replay of a stream never appended to is mcphttp.ErrNotFound;
//   - Replay returns the events after a number, in order, as copies, and
//     whether the stream's final event is stored;
//   - streams of the same ID in two sessions are two streams;
//   - an Append of a number at or below the stream's last stored is
//     ignored, so that an append retried after a lost reply (by the store
//     or its client library) does not deliver an event twice;
//   - a stream keeps at most l.MaxEvents events and l.MaxEventBytes bytes,
//     the oldest going first, and its newest event whatever its size;
//   - a session keeps at most l.MaxStreams streams, those started longest
//     ago going first;
//   - a stream expires ttl after its last Append.
//
// A store may count bytes with an overhead of its own per event (its
// encoding); the checks allow up to 64 bytes of it.
func TestEventStore(t *testing.T, s mcphttp.EventStore, l Limits) {
	t.Helper()
	// Below 2048 bytes, five of the events of BoundedInBytes would fit.
	if l.MaxEvents < 2 || l.MaxStreams < 1 || l.MaxEventBytes < 2048 {
		t.Fatalf("storetest: Limits %+v: need MaxEvents ≥ 2, MaxStreams ≥ 1, MaxEventBytes ≥ 2048", l)
	}
	ctx := context.Background()
	appendN := func(t *testing.T, session, stream string, from, to int, data func(n int) []byte) {
		t.Helper()
		for n := from; n <= to; n++ {
			if err := s.Append(ctx, session, stream, mcphttp.StoredEvent{N: n, Data: data(n)}, false, long); err != nil {
				t.Fatalf("Append %d: %v", n, err)
			}
		}
	}

	t.Run("ReplayUnknown", func(t *testing.T) {
		if evs, final, err := s.Replay(ctx, newID("unknown"), "x1", 0); !errors.Is(err, mcphttp.ErrNotFound) {
			t.Fatalf("Replay of a stream never appended to: %d events, final %v, %v; want ErrNotFound", len(evs), final, err)
		}
	})

	t.Run("ReplayAfter", func(t *testing.T) {
		session := newID("replay")
		appendN(t, session, "x1", 1, 4, small)
		mustReplay(t, s, session, "x1", 0, []int{1, 2, 3, 4}, false)
		mustReplay(t, s, session, "x1", 2, []int{3, 4}, false)
		mustReplay(t, s, session, "x1", 4, nil, false)
		if err := s.Append(ctx, session, "x1", mcphttp.StoredEvent{N: 5, Data: small(5)}, true, long); err != nil {
			t.Fatal(err)
		}
		mustReplay(t, s, session, "x1", 3, []int{4, 5}, true)
	})

	t.Run("Copies", func(t *testing.T) {
		session := newID("copies")
		buf := small(1)
		if err := s.Append(ctx, session, "x1", mcphttp.StoredEvent{N: 1, Data: buf}, false, long); err != nil {
			t.Fatal(err)
		}
		copy(buf, small(9))
		evs, _, err := s.Replay(ctx, session, "x1", 0)
		if err != nil || len(evs) != 1 {
			t.Fatalf("Replay: %d events, %v", len(evs), err)
		}
		copy(evs[0].Data, small(8))
		mustReplay(t, s, session, "x1", 0, []int{1}, false)
	})

	t.Run("StreamsOfTwoSessions", func(t *testing.T) {
		a, b := newID("two"), newID("two")
		appendN(t, a, "x1", 1, 2, small)
		appendN(t, b, "x1", 1, 3, small)
		mustReplay(t, s, a, "x1", 0, []int{1, 2}, false)
		mustReplay(t, s, b, "x1", 0, []int{1, 2, 3}, false)
	})

	t.Run("RetriedAppendIsStoredOnce", func(t *testing.T) {
		session := newID("retry")
		appendN(t, session, "x1", 1, 3, small)
		// The retries of a lost reply: the last event, then an earlier one.
		appendN(t, session, "x1", 3, 3, small)
		appendN(t, session, "x1", 2, 2, small)
		mustReplay(t, s, session, "x1", 0, []int{1, 2, 3}, false)
	})

	t.Run("BoundedInEvents", func(t *testing.T) {
		session := newID("count")
		last := l.MaxEvents + 3
		appendN(t, session, "x1", 1, last, small)
		var want []int
		for n := last - l.MaxEvents + 1; n <= last; n++ {
			want = append(want, n)
		}
		mustReplay(t, s, session, "x1", 0, want, false)
	})

	t.Run("BoundedInBytes", func(t *testing.T) {
		// Events of a quarter of the bound, less the overhead a store may
		// count: four fit, a fifth does not.
		session := newID("bytes")
		size := l.MaxEventBytes/4 - eventOverhead
		sized := func(n int) []byte { return sizedEvent(n, size) }
		last := min(l.MaxEvents, 8)
		appendN(t, session, "x1", 1, last, sized)
		evs, _, err := s.Replay(ctx, session, "x1", 0)
		if err != nil {
			t.Fatal(err)
		}
		want := min(last, 4)
		if len(evs) != want || evs[len(evs)-1].N != last {
			t.Fatalf("MaxEventBytes %d, %d events of %d bytes: kept %s; want the newest %d", l.MaxEventBytes, last, size, numbers(evs), want)
		}
		checkSuffix(t, evs, last)

		// The newest is kept whatever its size, alone.
		huge := sizedEvent(last+1, 2*l.MaxEventBytes)
		if err := s.Append(ctx, session, "x1", mcphttp.StoredEvent{N: last + 1, Data: huge}, false, long); err != nil {
			t.Fatal(err)
		}
		evs, _, err = s.Replay(ctx, session, "x1", 0)
		if err != nil || len(evs) != 1 || evs[0].N != last+1 || !bytes.Equal(evs[0].Data, huge) {
			t.Fatalf("after an event of twice MaxEventBytes: kept %s (%v); want it alone", numbers(evs), err)
		}
	})

	t.Run("BoundedInStreams", func(t *testing.T) {
		session := newID("streams")
		streams := l.MaxStreams + 2
		for i := 1; i <= streams; i++ {
			appendN(t, session, fmt.Sprint("x", i), 1, 1, small)
		}
		for i := 1; i <= streams; i++ {
			_, _, err := s.Replay(ctx, session, fmt.Sprint("x", i), 0)
			if gone := i <= streams-l.MaxStreams; gone != errors.Is(err, mcphttp.ErrNotFound) || (!gone && err != nil) {
				t.Fatalf("MaxStreams %d, %d streams started: stream %d replays with %v; want the first %d gone",
					l.MaxStreams, streams, i, err, streams-l.MaxStreams)
			}
		}
	})

	t.Run("Expiry", func(t *testing.T) {
		t.Parallel()
		session := newID("expiry")
		if err := s.Append(ctx, session, "x1", mcphttp.StoredEvent{N: 1, Data: small(1)}, false, expiryTTL); err != nil {
			t.Fatal(err)
		}
		waitGone(t, func() error { _, _, err := s.Replay(ctx, session, "x1", 0); return err })
	})
}

// eventOverhead is what the checks allow a store to count per event
// beyond its data (its own encoding of the event's number and flags).
const eventOverhead = 64

// small is event n's data: a small JSON-RPC notification.
func small(n int) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":%d}}`, n)
}

// sizedEvent is event n's data, a JSON string of size bytes.
func sizedEvent(n, size int) []byte {
	head := fmt.Sprintf(`"%d:`, n)
	return []byte(head + strings.Repeat("x", max(size-len(head)-1, 0)) + `"`)
}

// mustReplay checks that Replay after after returns the events numbered
// want, with the data appendN gave them, and final.
func mustReplay(t *testing.T, s mcphttp.EventStore, session, stream string, after int, want []int, final bool) {
	t.Helper()
	evs, gotFinal, err := s.Replay(context.Background(), session, stream, after)
	if err != nil {
		t.Fatalf("Replay after %d: %v", after, err)
	}
	if len(evs) != len(want) || gotFinal != final {
		t.Fatalf("Replay after %d: events %s, final %v; want %v, final %v", after, numbers(evs), gotFinal, want, final)
	}
	for i, n := range want {
		if evs[i].N != n || !bytes.Equal(evs[i].Data, small(n)) {
			t.Fatalf("Replay after %d: event %d is number %d, %s; want number %d, %s", after, i, evs[i].N, evs[i].Data, n, small(n))
		}
	}
}

// checkSuffix checks that evs are numbered one after another up to last.
func checkSuffix(t *testing.T, evs []mcphttp.StoredEvent, last int) {
	t.Helper()
	for i, e := range evs {
		if want := last - len(evs) + 1 + i; e.N != want {
			t.Fatalf("kept %s: not the newest events in order", numbers(evs))
		}
	}
}

func numbers(evs []mcphttp.StoredEvent) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, e := range evs {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, e.N)
	}
	b.WriteByte(']')
	return b.String()
}
