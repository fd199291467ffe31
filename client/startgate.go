package client

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
)

// defaultMaxConcurrentStarts is the bound on a Manager's starts at once
// when ManagerOptions.MaxConcurrentStarts is zero: two per CPU, at least
// four.
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

// startGate bounds the starts under way at once: the first start of a
// server and each restart of one hold a slot from launching the program
// until its handshake ends (or it fails). A nil gate bounds nothing.
type startGate struct {
	slots   chan struct{}
	waiting atomic.Int32 // starts waiting for a slot (tests read it)
}

func newStartGate(n int) *startGate {
	if n < 0 {
		return nil
	}
	if n == 0 {
		n = defaultMaxConcurrentStarts()
	}
	return &startGate{slots: make(chan struct{}, n)}
}

// acquire waits for a slot, within ctx: when ctx ends first it returns
// ctx's cause and holds nothing. release must follow a nil error.
func (g *startGate) acquire(ctx context.Context) error {
	if g == nil {
		return nil
	}
	if ctx.Err() != nil {
		// A free slot must not win over a context already ended (select
		// picks at random among ready cases).
		return context.Cause(ctx)
	}
	select {
	case g.slots <- struct{}{}:
		return nil
	default:
	}
	g.waiting.Add(1)
	defer g.waiting.Add(-1)
	select {
	case g.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for one of %d start slots (ManagerOptions.MaxConcurrentStarts): %w", cap(g.slots), context.Cause(ctx))
	}
}

func (g *startGate) release() {
	if g != nil {
		<-g.slots
	}
}
