package client_test

import (
	"log/slog"
	"os"
	"runtime"
	"testing"
	"time"
)

func runtimeGosched() { runtime.Gosched() }

// quietLog drops the warnings the misbehaving servers cause on purpose.
var quietLog = slog.New(slog.DiscardHandler)

// noLeaks records the goroutines and descriptors now and checks, when the
// test ends (after the cleanups registered later, which run first), that
// their numbers came back down within a bounded poll.
func noLeaks(t *testing.T) {
	t.Helper()
	g0, fd0 := runtime.NumGoroutine(), countFDs()
	t.Cleanup(func() {
		var g, fd int
		ok := pollUntil(5*time.Second, func() bool {
			g, fd = runtime.NumGoroutine(), countFDs()
			return g <= g0 && fd <= fd0
		})
		if !ok {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Errorf("leak: %d goroutines (was %d), %d descriptors (was %d)\n%s", g, g0, fd, fd0, buf)
		}
	})
}

// countFDs counts this process's open descriptors (-1 where /proc is
// missing, which makes the check vacuous).
func countFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// pollUntil polls cond every few milliseconds until it holds or d passes.
func pollUntil(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond) // polling interval, not synchronization
	}
}
