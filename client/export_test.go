package client

import "time"

// SetFirstListenWait sets how long Connect waits for the first listen's
// acknowledgement, until the test ends. Client tests do not run in
// parallel.
func SetFirstListenWait(t interface{ Cleanup(func()) }, d time.Duration) {
	old := firstListenWait
	firstListenWait = d
	t.Cleanup(func() { firstListenWait = old })
}

// SetManagerClock replaces the clock of a Manager's start backoff.
func SetManagerClock(m *Manager, now func() time.Time) { m.now = now }

// StartsWaiting is how many starts wait for a slot of the Manager's
// MaxConcurrentStarts.
func StartsWaiting(m *Manager) int { return int(m.limit.waiting.Load()) }

// LimitWaiting is how many starts wait for a slot of l.
func LimitWaiting(l *StartLimit) int { return int(l.waiting.Load()) }
