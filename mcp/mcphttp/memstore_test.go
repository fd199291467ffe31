package mcphttp_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// MemoryStore keeps what it is told for as long as it is told, and no
// more: sessions and streams expire, and a stream holds MaxEvents events.
func TestMemoryStoreBounds(t *testing.T) {
	now := time.Unix(1000, 0)
	m := &mcphttp.MemoryStore{MaxEvents: 3, Now: func() time.Time { return now }}
	ctx := context.Background()
	if err := m.Create(ctx, "s", []byte("1"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if n, err := m.Append(ctx, "s", []byte("2"), time.Minute); err != nil || n != 2 {
		t.Fatalf("Append: %d, %v", n, err)
	}
	ev := m.Events()
	for n := 1; n <= 5; n++ {
		_ = ev.Append(ctx, "s", "x", mcphttp.StoredEvent{N: n, Data: []byte(fmt.Sprint(n))}, n == 5, time.Minute)
	}
	evs, final, err := ev.Replay(ctx, "s", "x", 3)
	if err != nil || !final || len(evs) != 2 || evs[0].N != 4 {
		t.Fatalf("Replay after 3: %+v %v %v; want 4 and 5, final", evs, final, err)
	}
	if all, _, _ := ev.Replay(ctx, "s", "x", 0); len(all) != 3 {
		t.Fatalf("a stream holds %d events, MaxEvents is 3", len(all))
	}
	// Past the final event nothing is added.
	_ = ev.Append(ctx, "s", "x", mcphttp.StoredEvent{N: 6, Data: []byte("6")}, false, time.Minute)
	if all, _, _ := ev.Replay(ctx, "s", "x", 0); all[len(all)-1].N != 5 {
		t.Fatal("an event was stored after the final one")
	}
	// Load keeps the session alive; unused, it expires.
	now = now.Add(50 * time.Second)
	if msgs, err := m.Load(ctx, "s", time.Minute); err != nil || len(msgs) != 2 {
		t.Fatalf("Load: %q, %v", msgs, err)
	}
	now = now.Add(59 * time.Second)
	if _, err := m.Load(ctx, "s", time.Minute); err != nil {
		t.Fatalf("a session loaded 59 s ago with a 1 min ttl: %v", err)
	}
	now = now.Add(2 * time.Minute)
	if _, err := m.Load(ctx, "s", time.Minute); !errors.Is(err, mcphttp.ErrNotFound) {
		t.Fatalf("an expired session: %v, want ErrNotFound", err)
	}
	if _, _, err := ev.Replay(ctx, "s", "x", 0); !errors.Is(err, mcphttp.ErrNotFound) {
		t.Fatalf("an expired stream: %v, want ErrNotFound", err)
	}
	_ = m.Create(ctx, "d", []byte("1"), time.Minute)
	_ = m.Delete(ctx, "d")
	if _, err := m.Load(ctx, "d", time.Minute); !errors.Is(err, mcphttp.ErrNotFound) {
		t.Fatalf("a deleted session: %v", err)
	}
}

// A rotation keeps Keep keys, the new one sealing.
func TestKeyringRotate(t *testing.T) {
	k := mcphttp.NewKeyring([]byte("one"))
	k.Rotate([]byte("two"))
	k.Rotate([]byte("three"))
	got := k.StateKeys()
	if len(got) != 2 || string(got[0]) != "three" || string(got[1]) != "two" {
		t.Fatalf("keys %q, want three, two", got)
	}
	if len((&mcphttp.Keyring{}).StateKeys()) != 0 {
		t.Fatal("the zero Keyring holds a key")
	}
}

// A session's streams are bounded in number, not only each in events: a
// client that opens stream after stream (one per call) keeps at most
// MaxStreams of them in the store, the most recently started.
func TestMemoryStoreStreamsPerSession(t *testing.T) {
	m := &mcphttp.MemoryStore{MaxStreams: 4}
	ev := m.Events()
	ctx := context.Background()
	for i := 1; i <= 10; i++ {
		for n := 1; n <= 2; n++ {
			_ = ev.Append(ctx, "s", fmt.Sprint("x", i), mcphttp.StoredEvent{N: n, Data: []byte("{}")}, false, time.Minute)
		}
	}
	_ = ev.Append(ctx, "other", "x1", mcphttp.StoredEvent{N: 1, Data: []byte("{}")}, false, time.Minute)
	for i := 1; i <= 10; i++ {
		_, _, err := ev.Replay(ctx, "s", fmt.Sprint("x", i), 0)
		if kept := err == nil; kept != (i > 6) {
			t.Errorf("stream x%d of 10, MaxStreams 4: kept %v (%v)", i, kept, err)
		}
	}
	if _, _, err := ev.Replay(ctx, "other", "x1", 0); err != nil {
		t.Fatalf("another session's stream was dropped: %v", err)
	}
}

// A session's record is bounded in the store, under its lock: beyond
// MaxStateMessages messages or MaxStateBytes bytes an append is refused
// with ErrRecordFull and nothing is stored.
func TestMemoryStoreRecordIsBounded(t *testing.T) {
	m := &mcphttp.MemoryStore{}
	ctx := context.Background()
	big := make([]byte, mcphttp.MaxStateBytes/2)
	if err := m.Create(ctx, "big", big, time.Minute); err != nil {
		t.Fatal(err)
	}
	for i, want := range []error{nil, mcphttp.ErrRecordFull} {
		if _, err := m.Append(ctx, "big", big, time.Minute); !errors.Is(err, want) {
			t.Fatalf("append %d of %d bytes: %v, want %v", i+1, len(big), err, want)
		}
	}
	if err := m.Create(ctx, "many", []byte(`{}`), time.Minute); err != nil {
		t.Fatal(err)
	}
	for i := range mcphttp.MaxStateMessages - 1 {
		if _, err := m.Append(ctx, "many", []byte(`{}`), time.Minute); err != nil {
			t.Fatalf("append %d: %v", i+1, err)
		}
	}
	if _, err := m.Append(ctx, "many", []byte(`{}`), time.Minute); !errors.Is(err, mcphttp.ErrRecordFull) {
		t.Fatalf("append %d: %v, want ErrRecordFull", mcphttp.MaxStateMessages+1, err)
	}
	if msgs, _ := m.Load(ctx, "many", 0); len(msgs) != mcphttp.MaxStateMessages {
		t.Fatalf("the record holds %d messages, the bound is %d", len(msgs), mcphttp.MaxStateMessages)
	}
}

// A stream in a MemoryStore is bounded in bytes as well as in events: by
// default DefaultStoreEventBytes, the oldest events going first, the
// newest kept whatever its size. A resume after an event trimmed for
// bytes gets what is left, as after one trimmed for count.
func TestMemoryStoreEventBytesAreBounded(t *testing.T) {
	m := &mcphttp.MemoryStore{}
	ev := m.Events()
	ctx := context.Background()
	data := make([]byte, 256<<10)
	for n := 1; n <= 20; n++ { // 5 MiB
		if err := ev.Append(ctx, "s", "x", mcphttp.StoredEvent{N: n, Data: data}, false, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	evs, _, err := ev.Replay(ctx, "s", "x", 0)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, e := range evs {
		total += len(e.Data)
	}
	if total > mcphttp.DefaultStoreEventBytes || evs[len(evs)-1].N != 20 {
		t.Fatalf("the stream holds %d bytes up to event %d, the bound is %d", total, evs[len(evs)-1].N, mcphttp.DefaultStoreEventBytes)
	}
	if evs[0].N != 20-len(evs)+1 {
		t.Fatalf("the stream holds events %d to 20: not the newest", evs[0].N)
	}
	if after, _, err := ev.Replay(ctx, "s", "x", 1); err != nil || len(after) != len(evs) {
		t.Fatalf("a resume after a trimmed event: %d events (%v), want the %d kept", len(after), err, len(evs))
	}
	// An event larger than the bound is kept, alone.
	small := &mcphttp.MemoryStore{MaxEventBytes: 100}
	for n := 1; n <= 3; n++ {
		_ = small.Events().Append(ctx, "s", "x", mcphttp.StoredEvent{N: n, Data: make([]byte, 60*n)}, n == 3, time.Minute)
	}
	if evs, final, _ := small.Events().Replay(ctx, "s", "x", 0); len(evs) != 1 || evs[0].N != 3 || !final {
		t.Fatalf("MaxEventBytes 100, events of 60, 120 and 180 bytes: kept %+v final=%v, want the last alone", evs, final)
	}
}
