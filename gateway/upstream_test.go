package gateway

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
)

// An upstream that exits right after its handshake is paced as one that
// cannot start: each short run counts as a failed start and the backoff
// grows (500 ms, 1 s, 2 s). Before, a successful start reset the backoff
// and the loop launched the server again as soon as its process gave up,
// about once a second forever. The test takes over the loop's waits, so it
// sees the delays without taking them.
func TestUpstreamThatQuitsIsPaced(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := &client.Config{Servers: map[string]*client.ServerConfig{
		"quitter": {Name: "quitter", Command: exe, Env: map[string]string{helperEnv: "quitter"}, Lifecycle: client.KeepAlive},
	}}
	g, err := New(&Options{Config: cfg, Logger: slog.New(slog.DiscardHandler),
		// The process gives up at its first failed restart, at once.
		Process: client.ProcessOptions{Restart: &client.RestartPolicy{MaxRestarts: 1, InitialDelay: time.Millisecond, Jitter: -1}}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	waits := make(chan time.Duration)
	g.ups["quitter"].wait = func(ctx context.Context, d time.Duration) bool {
		select {
		case waits <- d:
			return true
		case <-ctx.Done():
			return false
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = g.Start(ctx) // ready, or already stopped: either is this test's case
	// Within 10 s: the three short runs take a fraction of that, and a
	// loop without the backoff launches the server hundreds of times.
	ctx, cancel = context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	want := []time.Duration{startBackoffMin, 2 * startBackoffMin, 4 * startBackoffMin}
	for i, w := range want {
		select {
		case d := <-waits:
			if d != w {
				t.Fatalf("wait %d after a run that ended at once: %v, want %v", i+1, d, w)
			}
		case <-ctx.Done():
			t.Fatalf("no backoff after %d short runs: the server is launched again at once", i+1)
		}
	}
}
