package mcphttp

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// TestBudgetWakesWaiter: a release wakes an acquire waiting for room, and
// a release with nobody waiting replaces no channel (no allocation).
func TestBudgetWakesWaiter(t *testing.T) {
	var b budget
	b.init(100)
	if !b.tryAcquire(80, 0) {
		t.Fatal("tryAcquire on an empty budget failed")
	}
	got := make(chan bool)
	go func() { got <- b.acquire(context.Background(), 50, 0, nil) }()
	for { // wait until the acquire waits: it counts itself under mu
		b.mu.Lock()
		w := b.waiters
		b.mu.Unlock()
		if w == 1 {
			break
		}
		runtime.Gosched()
	}
	b.release(80)
	if !<-got {
		t.Fatal("acquire failed after room was released")
	}
	if b.waiters != 0 || b.inUse() != 50 {
		t.Fatalf("waiters %d, in use %d; want 0, 50", b.waiters, b.inUse())
	}
	before := b.changed
	if allocs := testing.AllocsPerRun(100, func() {
		b.tryAcquire(10, 0)
		b.release(10)
	}); allocs != 0 {
		t.Fatalf("tryAcquire and release with no waiter: %v allocations", allocs)
	}
	if b.changed != before {
		t.Fatal("a release with no waiter replaced the channel")
	}
}

// TestBudgetWaiterGivesUp: an acquire that gives up (its context ends)
// stops counting as a waiter.
func TestBudgetWaiterGivesUp(t *testing.T) {
	var b budget
	b.init(10)
	b.tryAcquire(10, 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if b.acquire(ctx, 5, 0, nil) {
		t.Fatal("acquire with an ended context and no room succeeded")
	}
	expire := make(chan time.Time, 1)
	expire <- time.Time{}
	if b.acquire(context.Background(), 5, 0, expire) {
		t.Fatal("acquire past its wait succeeded")
	}
	if b.waiters != 0 {
		t.Fatalf("%d waiters left", b.waiters)
	}
}
