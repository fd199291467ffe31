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
	if !b.tryAcquire(80, 0, nil) {
		t.Fatal("tryAcquire on an empty budget failed")
	}
	got := make(chan bool)
	go func() { got <- b.acquire(context.Background(), 50, 0, nil, nil) }()
	untilLocked(&b, func() bool { return b.waiters == 1 }) // the acquire waits
	b.release(80)
	if !<-got {
		t.Fatal("acquire failed after room was released")
	}
	if b.waiters != 0 || b.inUse() != 50 {
		t.Fatalf("waiters %d, in use %d; want 0, 50", b.waiters, b.inUse())
	}
	before := b.changed
	if allocs := testing.AllocsPerRun(100, func() {
		b.tryAcquire(10, 0, nil)
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
	b.tryAcquire(10, 0, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if b.acquire(ctx, 5, 0, nil, nil) {
		t.Fatal("acquire with an ended context and no room succeeded")
	}
	expire := make(chan time.Time, 1)
	expire <- time.Time{}
	if b.acquire(context.Background(), 5, 0, expire, nil) {
		t.Fatal("acquire past its wait succeeded")
	}
	if b.waiters != 0 {
		t.Fatalf("%d waiters left", b.waiters)
	}
}

// TestBudgetConnBodies: over HTTP/2 a body does not wait for room while
// another body of its connection holds some (their shared flow-control
// window would stall that one); one waiting for room held elsewhere
// waits, and is refused once a body of its connection takes room.
func TestBudgetConnBodies(t *testing.T) {
	var b budget
	b.init(100)
	other, k := b.enter("other"), b.enter("k")
	holder := b.enter("k")
	if !b.tryAcquire(60, 0, holder) {
		t.Fatal("tryAcquire on an empty budget failed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if b.acquire(ctx, 50, 0, nil, k) || ctx.Err() != nil {
		t.Fatal("a body waited for room while another of its connection held some")
	}
	// The room is held on another connection: the body waits.
	b.leave(holder, 60)
	b.release(60)
	if !b.tryAcquire(60, 0, other) {
		t.Fatal("tryAcquire on an empty budget failed")
	}
	got := make(chan bool)
	go func() { got <- b.acquire(context.Background(), 50, 0, nil, k) }()
	untilLocked(&b, func() bool { return k.waiting == 1 }) // the acquire waits
	// A body of its connection takes room: the waiter is refused.
	late := b.enter("k")
	if !b.tryAcquire(10, 0, late) {
		t.Fatal("tryAcquire within the budget failed")
	}
	select {
	case ok := <-got:
		if ok {
			t.Fatal("the waiter acquired room over the budget")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter still waits while a body of its connection holds room")
	}
	b.leave(late, 10)
	b.release(10)
	b.leave(other, 60)
	b.release(60)
	b.leave(k, 0)
	if len(b.conns) != 0 || b.inUse() != 0 || b.waiters != 0 {
		t.Fatalf("left: %d connections, %d bytes, %d waiters", len(b.conns), b.inUse(), b.waiters)
	}
}

// untilLocked waits until cond, read under b.mu, holds: an acquire
// counts itself as waiting under mu.
func untilLocked(b *budget, cond func() bool) {
	for {
		b.mu.Lock()
		ok := cond()
		b.mu.Unlock()
		if ok {
			return
		}
		runtime.Gosched()
	}
}
