package client_test

import (
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
)

// A run shorter than StableAfter counts as a failed start, and the
// backoff grows across such runs; a long run clears the count.
func TestStartPacerCountsShortRuns(t *testing.T) {
	sp := client.NewStartPacer(&client.RestartPolicy{InitialDelay: time.Second, MaxDelay: 4 * time.Second, Jitter: -1})
	t0 := time.Unix(1000, 0)
	if next := sp.Failed(t0); next != t0.Add(time.Second) || sp.Failures() != 1 {
		t.Fatalf("first failure: next %v, failures %d", next.Sub(t0), sp.Failures())
	}
	for i, want := range []time.Duration{2 * time.Second, 4 * time.Second, 4 * time.Second} {
		sp.Started()
		next, short := sp.Ended(t0, t0.Add(time.Second))
		if !short || next.Sub(t0.Add(time.Second)) != want {
			t.Fatalf("short run %d: short %v, next in %v, want %v", i+1, short, next.Sub(t0.Add(time.Second)), want)
		}
	}
	sp.Started()
	if _, short := sp.Ended(t0, t0.Add(time.Minute)); short || sp.Failures() != 0 {
		t.Fatalf("a run of StableAfter: short %v, failures %d", short, sp.Failures())
	}
	sp.Started()
	if next, short := sp.Ended(t0, t0.Add(time.Second)); !short || next.Sub(t0.Add(time.Second)) != time.Second {
		t.Fatalf("a short run after a stable one starts the backoff over: next in %v", next.Sub(t0.Add(time.Second)))
	}
}
