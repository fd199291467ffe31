package transport

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// echoPair connects a client to a server that echoes params, replying on
// the read loop (the cheapest handler).
func echoPair(b *testing.B, k pairKind) *Conn {
	b.Helper()
	cs, ss := k.new()
	srv := NewConn(ss, HandlerFunc(func(ctx context.Context, c *Conn, r *Request) {
		if !r.IsNotification() {
			_ = c.Reply(ctx, r, r.Params)
		}
	}), &ConnOptions{Logger: quiet})
	cli := NewConn(cs, nil, &ConnOptions{Logger: quiet})
	b.Cleanup(func() { cli.Close(); srv.Close() })
	return cli
}

var benchParams = json.RawMessage(`{"name":"tool","arguments":{"path":"C:\\Users\\x","n":42}}`)

// BenchmarkRoundTrip is one call at a time.
func BenchmarkRoundTrip(b *testing.B) {
	for _, k := range pairKinds {
		b.Run(k.name, func(b *testing.B) {
			cli := echoPair(b, k)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cli.Go(context.Background(), "echo", benchParams).Raw(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRoundTripConcurrent is 64 callers sharing one connection; ns/op
// is per call.
func BenchmarkRoundTripConcurrent(b *testing.B) {
	const callers = 64
	for _, k := range pairKinds {
		b.Run(k.name, func(b *testing.B) {
			cli := echoPair(b, k)
			b.ReportAllocs()
			b.ResetTimer()
			var wg sync.WaitGroup
			per := (b.N + callers - 1) / callers
			for range callers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range per {
						if _, err := cli.Go(context.Background(), "echo", benchParams).Raw(); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
		})
	}
}

// BenchmarkLargePayload sends an 8 MiB string and gets it back.
func BenchmarkLargePayload(b *testing.B) {
	s := strings.Repeat("0123456789abcdef", (8<<20)/16)
	params, _ := json.Marshal([]string{s})
	for _, k := range pairKinds {
		b.Run(k.name, func(b *testing.B) {
			cli := echoPair(b, k)
			b.ReportAllocs()
			b.SetBytes(int64(2 * len(params)))
			for b.Loop() {
				raw, err := cli.Go(context.Background(), "echo", json.RawMessage(params)).Raw()
				if err != nil || len(raw) != len(params) {
					b.Fatalf("%d bytes, %v", len(raw), err)
				}
			}
		})
	}
}

// An 8 MiB payload makes the round trip under the default limit, byte for
// byte, escapes included.
func TestLargePayload(t *testing.T) {
	checkLeaks(t)
	unit := `0123456789abcdef0123456789abcdef0123456789abcdef0123456789abc\"\u00e9`
	params := json.RawMessage(`["` + strings.Repeat(unit, (8<<20)/len(unit)+1) + `"]`)
	for _, k := range pairKinds {
		t.Run(k.name, func(t *testing.T) {
			a, b := k.new()
			srv := NewConn(b, asyncEcho, &ConnOptions{Logger: quiet})
			defer srv.Close()
			cli := NewConn(a, nil, &ConnOptions{Logger: quiet})
			defer cli.Close()
			raw, err := cli.Go(context.Background(), "echo", params).Raw()
			if err != nil {
				t.Fatal(err)
			}
			if string(raw) != string(params) {
				t.Fatalf("the payload came back changed (%d bytes, sent %d)", len(raw), len(params))
			}
		})
	}
}
