package delayq

import (
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// The tests run in synctest bubbles: time is the bubble's, and advances
// only when every goroutine in it waits, so that "ran exactly delay after
// it was added" is an equality, not a guess.

const delay = 20 * time.Millisecond

// wait records when, and how often, it ran.
type wait struct {
	Entry
	mu    sync.Mutex
	runs  int
	ranAt time.Time
}

func (w *wait) Due() {
	w.mu.Lock()
	w.runs++
	w.ranAt = time.Now()
	w.mu.Unlock()
}

func (w *wait) ran() (int, time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.runs, w.ranAt
}

// armCount is how often the timer was set.
func (q *Queue) armCount() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.arms
}

func TestRunsOnceWhenDue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(delay)
		var ws [3]wait
		var added [3]time.Time
		for i, gap := range []time.Duration{0, time.Millisecond, 7 * time.Millisecond} {
			time.Sleep(gap)
			added[i] = time.Now()
			q.Add(&ws[i].Entry, &ws[i])
		}
		time.Sleep(delay / 2)
		synctest.Wait()
		for i := range ws {
			if n, _ := ws[i].ran(); n != 0 {
				t.Fatalf("wait %d ran %d times before its delay", i, n)
			}
		}
		time.Sleep(delay)
		synctest.Wait()
		for i := range ws {
			n, at := ws[i].ran()
			if n != 1 {
				t.Fatalf("wait %d ran %d times, want 1", i, n)
			}
			if got := at.Sub(added[i]); got != delay {
				t.Errorf("wait %d ran %v after it was added, want %v", i, got, delay)
			}
			if q.Remove(&ws[i].Entry) {
				t.Errorf("Remove of wait %d after it ran reported true", i)
			}
		}
	})
}

func TestRemoved(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(delay)
		var a, b, c wait
		q.Add(&a.Entry, &a)
		q.Add(&b.Entry, &b)
		q.Add(&c.Entry, &c)
		// The head, the middle and the tail of the list each go.
		for _, w := range []*wait{&b, &a} {
			if !q.Remove(&w.Entry) {
				t.Fatal("Remove of a waiting entry reported false")
			}
			if q.Remove(&w.Entry) {
				t.Fatal("a second Remove reported true")
			}
		}
		time.Sleep(2 * delay)
		synctest.Wait()
		if n, _ := a.ran(); n != 0 {
			t.Errorf("a removed wait ran %d times", n)
		}
		if n, _ := b.ran(); n != 0 {
			t.Errorf("a removed wait ran %d times", n)
		}
		if n, _ := c.ran(); n != 1 {
			t.Errorf("the wait left ran %d times, want 1", n)
		}
		var never wait
		if q.Remove(&never.Entry) {
			t.Error("Remove of an entry never added reported true")
		}
		// Taken back and added again: a wait of its own.
		q.Add(&a.Entry, &a)
		time.Sleep(delay)
		synctest.Wait()
		if n, _ := a.ran(); n != 1 {
			t.Errorf("an entry added again ran %d times, want 1", n)
		}
	})
}

// TestOneTimerForManyWaits: waits that come and go within the delay set
// the timer once; it is set again only for a wait after it fired.
func TestOneTimerForManyWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(delay)
		var w wait
		for range 10000 {
			q.Add(&w.Entry, &w)
			if !q.Remove(&w.Entry) {
				t.Fatal("Remove of a waiting entry reported false")
			}
		}
		if n := q.armCount(); n != 1 {
			t.Fatalf("10000 waits within the delay set the timer %d times, want 1", n)
		}
		time.Sleep(delay)
		synctest.Wait()
		q.Add(&w.Entry, &w)
		q.Remove(&w.Entry)
		if n := q.armCount(); n != 2 {
			t.Fatalf("a wait after the timer fired with nothing due: set %d times in all, want 2", n)
		}
		// A timer that fires with a wait not yet due is set for that
		// wait's time, not a whole delay later.
		time.Sleep(delay / 2)
		q.Add(&w.Entry, &w)
		added := time.Now()
		time.Sleep(delay)
		synctest.Wait()
		if n, at := w.ran(); n != 1 || at.Sub(added) != delay {
			t.Fatalf("ran %d times, %v after it was added; want once, %v after", n, at.Sub(added), delay)
		}
	})
}

// reentrant adds a wait of its own, and removes another, from its Due.
type reentrant struct {
	Entry
	q     *Queue
	next  *wait
	other *wait
	took  bool
}

func (r *reentrant) Due() {
	r.q.Add(&r.next.Entry, r.next)
	r.took = r.q.Remove(&r.other.Entry)
}

func TestDueUsesTheQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(delay)
		r := &reentrant{q: q, next: &wait{}, other: &wait{}}
		q.Add(&r.Entry, r)
		time.Sleep(time.Millisecond)
		q.Add(&r.other.Entry, r.other)
		time.Sleep(delay)
		synctest.Wait()
		if !r.took {
			t.Fatal("a Due's Remove of a waiting entry reported false")
		}
		time.Sleep(delay)
		synctest.Wait()
		if n, _ := r.next.ran(); n != 1 {
			t.Fatalf("the wait a Due added ran %d times, want 1", n)
		}
		if n, _ := r.other.ran(); n != 0 {
			t.Fatalf("the wait a Due removed ran %d times", n)
		}
	})
}

// counted counts its runs in a shared counter.
type counted struct {
	Entry
	runs *atomic.Int64
}

func (c *counted) Due() { c.runs.Add(1) }

// TestConcurrent: under -race, waits added and taken back from many
// goroutines at once, some falling due meanwhile, each either is taken
// back (Remove true) or runs once, never both.
func TestConcurrent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(delay)
		const workers, each = 8, 200
		var runs, kept atomic.Int64
		var wg sync.WaitGroup
		for g := range workers {
			wg.Go(func() {
				ws := make([]counted, each)
				for i := range ws {
					ws[i].runs = &runs
					q.Add(&ws[i].Entry, &ws[i])
					if i%7 == g%7 {
						time.Sleep(delay / 3) // let some fall due
					}
				}
				for i := range ws {
					if q.Remove(&ws[i].Entry) {
						kept.Add(1)
					}
				}
			})
		}
		wg.Wait()
		time.Sleep(2 * delay)
		synctest.Wait()
		if got := runs.Load() + kept.Load(); got != workers*each {
			t.Fatalf("%d ran and %d were taken back, of %d", runs.Load(), kept.Load(), workers*each)
		}
		if runs.Load() == 0 || kept.Load() == 0 {
			t.Fatalf("%d ran and %d were taken back: the test wants some of each", runs.Load(), kept.Load())
		}
	})
}

func TestMisuse(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", name)
			}
		}()
		f()
	}
	mustPanic("New(0)", func() { New(0) })
	synctest.Test(t, func(t *testing.T) {
		q := New(delay)
		var w wait
		q.Add(&w.Entry, &w)
		mustPanic("Add of a waiting entry", func() { q.Add(&w.Entry, &w) })
		q.Remove(&w.Entry)
	})
}
