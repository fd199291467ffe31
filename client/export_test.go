package client

import "time"

// SetManagerClock replaces the clock of a Manager's start backoff.
func SetManagerClock(m *Manager, now func() time.Time) { m.now = now }
