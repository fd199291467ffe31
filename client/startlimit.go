package client

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
)

// defaultMaxConcurrentStarts is the bound of NewStartLimit(0), and so of
// a Manager's starts at once when ManagerOptions.MaxConcurrentStarts is
// zero: two per CPU, at least four.
//
// Why: a start is mostly one interpreter loading (node, python: a core
// for a second or more) and, for npx, a package fetched from the
// network. Two per core keeps the cores busy while some starts wait on
// the network; more only make every start slower, until all of them miss
// their start-up timeout together (300 npx servers at once on two cores
// did). The floor of four keeps a small machine from starting a handful
// of servers one by one.
func defaultMaxConcurrentStarts() int {
	return max(4, 2*runtime.GOMAXPROCS(0))
}

// A StartLimit bounds how many server processes start at once. The
// processes launched with the same StartLimit (ProcessOptions.StartLimit)
// start at most n at a time, restarts included: each start holds a slot
// from launching the program until its handshake ends or fails, and a
// start beyond the bound waits for a slot within its context (Launch's
// ctx; a restart's, until Close), its start-up timeout counting from when
// it has one. Without a bound, a configuration of hundreds of npx servers
// starts hundreds of node processes at the same moment, and on a small
// machine every one of them misses its start-up timeout.
//
// A Manager makes one from ManagerOptions.MaxConcurrentStarts; make one
// with NewStartLimit to share a bound among code that calls Launch
// itself (the gateway's upstreams) or between several Managers. A nil
// *StartLimit bounds nothing. It is safe for concurrent use.
type StartLimit struct {
	slots   chan struct{} // nil: no bound
	waiting atomic.Int32  // starts waiting for a slot (tests read it)
}

// NewStartLimit returns a bound of n starts at once. Zero means two per
// CPU (GOMAXPROCS), at least four; negative means no bound.
func NewStartLimit(n int) *StartLimit {
	if n < 0 {
		return &StartLimit{}
	}
	if n == 0 {
		n = defaultMaxConcurrentStarts()
	}
	return &StartLimit{slots: make(chan struct{}, n)}
}

// acquire waits for a slot, within ctx: when ctx ends first it returns
// ctx's cause and holds nothing. release must follow a nil error.
func (l *StartLimit) acquire(ctx context.Context) error {
	if l == nil || l.slots == nil {
		return nil
	}
	if ctx.Err() != nil {
		// A free slot must not win over a context already ended (select
		// picks at random among ready cases).
		return context.Cause(ctx)
	}
	select {
	case l.slots <- struct{}{}:
		return nil
	default:
	}
	l.waiting.Add(1)
	defer l.waiting.Add(-1)
	select {
	case l.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for one of %d start slots (MaxConcurrentStarts): %w", cap(l.slots), context.Cause(ctx))
	}
}

func (l *StartLimit) release() {
	if l != nil && l.slots != nil {
		<-l.slots
	}
}
