package gateway

import (
	"context"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
)

// waitState waits for an upstream's state, on the gateway's change
// broadcast.
func waitState(t *testing.T, g *Gateway, name string, want ServerState) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		ch := g.settledCh()
		if g.upstream(name).State() == want {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("%s never became %s (is %s)", name, want, g.upstream(name).State())
		}
	}
}

// TestEphemeralUpstream: an ephemeral server sleeps when idle, its tools
// stay listed, and a call wakes it.
func TestEphemeralUpstream(t *testing.T) {
	cfg := hostileConfig(t)
	cfg.Servers["hostile"].Lifecycle = client.Ephemeral
	pol := mustPolicy(t, `{"approval":{"default":"never"}}`)
	f := start(t, &Options{Config: cfg, Policy: pol, IdleTimeout: 200 * time.Millisecond}, nil)
	if len(f.names(t)) == 0 {
		t.Fatal("nothing listed")
	}
	waitState(t, f.g, "hostile", StateAsleep)
	before := len(f.names(t))
	if before == 0 {
		t.Fatal("an asleep server's tools are not listed")
	}
	var tool string
	for _, pe := range f.g.Plan() {
		if pe.Tool == "win.exec" {
			tool = pe.Exposed
		}
	}
	res, code := f.call(t, tool, nil)
	if code != CodeOK || res.TextOf() != "ran win.exec" {
		t.Fatalf("%s %+v", code, res)
	}
	waitState(t, f.g, "hostile", StateAsleep)
	if n := len(f.names(t)); n != before {
		t.Errorf("%d tools listed after sleeping again, %d before", n, before)
	}
}
