package client

import (
	"sync"
	"time"
)

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

// StartWaiters is how many callers wait for the start under way of the
// Manager's server name (0 if none is under way).
func StartWaiters(m *Manager, name string) int {
	ms := m.servers[name]
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if ms.run == nil {
		return 0
	}
	return ms.run.waiting
}

// HoldLaunchEnds makes every start of a Manager wait, once its Launch has
// returned, until the returned release is called (or the test ends).
func HoldLaunchEnds(t interface{ Cleanup(func()) }) (release func()) {
	ch := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(ch) }) }
	launchEnded = func() { <-ch }
	t.Cleanup(func() { release(); launchEnded = nil })
	return release
}

// SawAbandoned is how many callers of the Manager's server name found a
// start that every caller had given up on, and waited for it to end.
func SawAbandoned(m *Manager, name string) int {
	ms := m.servers[name]
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return ms.sawAbandoned
}
