package delayq

import (
	"sync"
	"time"
)

// A Queue runs each wait added to it once the wait has lasted the
// queue's delay, unless Remove took it back first. Its methods may be
// called from any goroutine.
type Queue struct {
	delay time.Duration

	mu         sync.Mutex
	head, tail *Entry      // in the order added, which is the order due
	timer      *time.Timer // made on first use
	armed      bool        // timer is set, for head or for a wait since taken back
	arms       int         // how often the timer was set, for tests
}

// New returns a queue whose waits last d, which must be positive.
func New(d time.Duration) *Queue {
	if d <= 0 {
		panic("delayq: the delay must be positive")
	}
	return &Queue{delay: d}
}

// Entry is one wait, meant to be embedded in what waits; its zero value
// is ready for Add. An Entry waits in one queue at a time.
type Entry struct {
	prev, next *Entry
	due        time.Time
	queued     bool
	run        Due
}

// Due is what a wait runs once it has lasted its queue's delay. Due runs
// on the queue's timer goroutine, one wait after another, so it must
// return at once: anything that may block goes to a goroutine of its own.
type Due interface{ Due() }

// Add queues e to run d.Due once it has waited the queue's delay, and
// returns when that will be. e must not be waiting already. An entry may
// be added again once Remove took it back, or once its Due has returned;
// added again while its Due is yet to run, that Due runs for the new wait.
func (q *Queue) Add(e *Entry, d Due) time.Time {
	due := time.Now().Add(q.delay)
	q.mu.Lock()
	defer q.mu.Unlock()
	if e.queued {
		panic("delayq: Add of an entry that is waiting")
	}
	e.due, e.run, e.queued = due, d, true
	e.prev, e.next = q.tail, nil
	if q.tail != nil {
		q.tail.next = e
	} else {
		q.head = e
	}
	q.tail = e
	if !q.armed {
		// Nothing is set for an earlier wait, and none waiting is due
		// before e: every wait lasts the same.
		q.armed = true
		q.arms++
		if q.timer == nil {
			q.timer = time.AfterFunc(q.delay, q.fire)
		} else {
			q.timer.Reset(q.delay)
		}
	}
	return due
}

// Remove takes e back and reports whether it was waiting: false once it
// has fallen due (its Due has run, or is about to), or if it was never
// added. The timer stays set for a wait taken back, so that waits that
// come and go within the delay do not set it each time; when it fires
// with nothing due it is set again only for a later wait.
func (q *Queue) Remove(e *Entry) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !e.queued {
		return false
	}
	q.unlink(e)
	return true
}

func (q *Queue) unlink(e *Entry) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		q.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		q.tail = e.prev
	}
	e.prev, e.next, e.run, e.queued = nil, nil, nil, false
}

// fire runs the waits that have fallen due, and sets the timer for the
// next one, if any.
func (q *Queue) fire() {
	var due []Due
	now := time.Now()
	q.mu.Lock()
	for q.head != nil && !q.head.due.After(now) {
		e := q.head
		due = append(due, e.run)
		q.unlink(e)
	}
	if q.head != nil {
		q.arms++
		q.timer.Reset(q.head.due.Sub(now))
	} else {
		q.armed = false
	}
	q.mu.Unlock()
	// Outside the lock: a Due may add or remove waits.
	for _, d := range due {
		d.Due()
	}
}
