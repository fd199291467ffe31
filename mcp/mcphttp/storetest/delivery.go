package storetest

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// deliveryWait bounds the wait for a message sent to arrive.
const deliveryWait = 10 * time.Second

// TestRelay checks a and b, two replicas' Relays on one channel (the
// same Relay twice for one in this process), against the Relay contract:
// what either sends reaches every receiver of both, the sender's own
// included, with its bytes as sent; a receiver stopped gets nothing sent
// after its stop returned; and messages from one sender arrive in order.
func TestRelay(t *testing.T, a, b mcphttp.Relay) {
	t.Helper()
	ctx := context.Background()
	tag := newID("relay")
	// Each check sends messages tagged with its own name: other traffic
	// on a shared store's channel is ignored.
	receive := func(r mcphttp.Relay, check string) (<-chan []byte, func()) {
		ch := make(chan []byte, 64)
		prefix := []byte(`{"storetest":"` + tag + check)
		stop := r.Receive(func(msg []byte) {
			if bytes.HasPrefix(msg, prefix) {
				ch <- bytes.Clone(msg)
			}
		})
		return ch, stop
	}
	msg := func(check string, i int) []byte {
		return fmt.Appendf(nil, `{"storetest":"%s%s","i":%d}`, tag, check, i)
	}

	t.Run("EveryReceiver", func(t *testing.T) {
		ra, stopA := receive(a, "every")
		defer stopA()
		rb, stopB := receive(b, "every")
		defer stopB()
		for i, from := range []mcphttp.Relay{a, b} {
			m := msg("every", i)
			if err := from.Send(ctx, m); err != nil {
				t.Fatal(err)
			}
			for name, ch := range map[string]<-chan []byte{"a": ra, "b": rb} {
				if got := await(t, ch); !bytes.Equal(got, m) {
					t.Fatalf("receiver %s got %s, want %s", name, got, m)
				}
			}
		}
	})

	t.Run("InOrder", func(t *testing.T) {
		rb, stop := receive(b, "order")
		defer stop()
		const n = 32
		for i := range n {
			if err := a.Send(ctx, msg("order", i)); err != nil {
				t.Fatal(err)
			}
		}
		for i := range n {
			if got, want := await(t, rb), msg("order", i); !bytes.Equal(got, want) {
				t.Fatalf("message %d: got %s, want %s", i, got, want)
			}
		}
	})

	t.Run("Stop", func(t *testing.T) {
		stopped, stop := receive(b, "stop")
		live, stopLive := receive(b, "stop")
		defer stopLive()
		stop()
		m := msg("stop", 1)
		if err := a.Send(ctx, m); err != nil {
			t.Fatal(err)
		}
		// The live receiver hears it and a message after it: a stopped
		// receiver still called would have had the first by now.
		for i, m := range [][]byte{m, msg("stop", 2)} {
			if i > 0 {
				if err := a.Send(ctx, m); err != nil {
					t.Fatal(err)
				}
			}
			if got := await(t, live); !bytes.Equal(got, m) {
				t.Fatalf("live receiver got %s, want %s", got, m)
			}
		}
		select {
		case got := <-stopped:
			t.Fatalf("a receiver stopped before the send got %s", got)
		default:
		}
	})
}

// TestBus checks a and b, two replicas' Buses on one channel (the same
// Bus twice for one in this process), against the mcp.Bus contract: a
// Change published on either reaches every subscriber of both, the
// publisher's own included, once, with its method and URI; a
// subscriber stopped gets nothing published after its stop returned.
func TestBus(t *testing.T, a, b mcp.Bus) {
	t.Helper()
	ctx := context.Background()
	uri := "storetest://" + newID("bus") + "/"
	subscribe := func(bus mcp.Bus, check string) (<-chan mcp.Change, func()) {
		ch := make(chan mcp.Change, 64)
		stop := bus.Subscribe(func(c mcp.Change) {
			if len(c.URI) > len(uri+check) && c.URI[:len(uri+check)] == uri+check {
				ch <- c
			}
		})
		return ch, stop
	}
	change := func(check string, i int) mcp.Change {
		return mcp.Change{Method: "notifications/resources/updated", URI: fmt.Sprint(uri, check, "/", i)}
	}

	t.Run("EverySubscriberOnce", func(t *testing.T) {
		sa, stopA := subscribe(a, "every")
		defer stopA()
		sb, stopB := subscribe(b, "every")
		defer stopB()
		for i, from := range []mcp.Bus{a, b} {
			c := change("every", i)
			if err := from.Publish(ctx, c); err != nil {
				t.Fatal(err)
			}
			for name, ch := range map[string]<-chan mcp.Change{"a": sa, "b": sb} {
				if got := await(t, ch); got != c {
					t.Fatalf("subscriber %s got %+v, want %+v", name, got, c)
				}
			}
		}
		// Once each: a marker published after them is the next to arrive.
		last := change("every", 9)
		if err := a.Publish(ctx, last); err != nil {
			t.Fatal(err)
		}
		for name, ch := range map[string]<-chan mcp.Change{"a": sa, "b": sb} {
			if got := await(t, ch); got != last {
				t.Fatalf("subscriber %s got %+v again, or out of order; want %+v next", name, got, last)
			}
		}
	})

	t.Run("ListChange", func(t *testing.T) {
		ch := make(chan mcp.Change, 64)
		marker := change("list", 1)
		stop := b.Subscribe(func(c mcp.Change) {
			if c.URI == "" || c == marker {
				ch <- c
			}
		})
		defer stop()
		c := mcp.Change{Method: "notifications/tools/list_changed"}
		if err := a.Publish(ctx, c); err != nil {
			t.Fatal(err)
		}
		if err := a.Publish(ctx, marker); err != nil {
			t.Fatal(err)
		}
		// Another replica's list change may arrive too on a shared bus:
		// wait for this one, then the marker.
		seen := false
		for {
			got := await(t, ch)
			if got == marker {
				break
			}
			seen = seen || got == c
		}
		if !seen {
			t.Fatalf("%+v did not arrive before the marker published after it", c)
		}
	})

	t.Run("Stop", func(t *testing.T) {
		stopped, stop := subscribe(b, "stop")
		live, stopLive := subscribe(b, "stop")
		defer stopLive()
		stop()
		c := change("stop", 1)
		if err := a.Publish(ctx, c); err != nil {
			t.Fatal(err)
		}
		// The live subscriber hears it and a change after it: a stopped
		// subscriber still called would have had the first by now.
		for i, c := range []mcp.Change{c, change("stop", 2)} {
			if i > 0 {
				if err := a.Publish(ctx, c); err != nil {
					t.Fatal(err)
				}
			}
			if got := await(t, live); got != c {
				t.Fatalf("live subscriber got %+v, want %+v", got, c)
			}
		}
		select {
		case got := <-stopped:
			t.Fatalf("a subscriber stopped before the publish got %+v", got)
		default:
		}
	})
}

// await returns the next value from ch, failing after deliveryWait.
func await[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(deliveryWait):
		t.Fatalf("nothing arrived in %v", deliveryWait)
		panic("unreachable")
	}
}
