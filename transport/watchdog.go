package transport

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// ErrWriteTimeout reports that a message could not be written within the
// stream's write timeout (StreamOptions.WriteTimeout): the peer has stopped
// reading. The connection is closed; errors that wrap it also match
// ErrClosed when they come from a Conn.
var ErrWriteTimeout = errors.New("write timed out")

// writeWatchdog bounds the duration of each write. One timer serves every
// write, re-armed at its start: a message costs a clock read and a timer
// reset, not a timer of its own. The timer may fire late or for a write
// that has since finished, so the callback decides from the start time of
// the write in progress, if any.
type writeWatchdog struct {
	timeout time.Duration // <= 0: no bound
	fail    func(error)   // called once, from the timer's goroutine

	epoch time.Time                  // the zero of since, set with timeout
	since atomic.Int64               // when the write in progress started, +1; 0 when idle
	timer atomic.Pointer[time.Timer] // made by the first write
	once  sync.Once
	err   atomic.Pointer[error]
}

// start marks the beginning of a write. Writes are serialized by the caller.
func (w *writeWatchdog) start() {
	if w.timeout <= 0 {
		return
	}
	w.since.Store(int64(time.Since(w.epoch)) + 1)
	t := w.timer.Load()
	if t == nil {
		// Stored before it is armed, so that check always finds it.
		t = time.AfterFunc(math.MaxInt64, w.check)
		w.timer.Store(t)
	}
	t.Reset(w.timeout)
}

// stop marks the end of the write.
func (w *writeWatchdog) stop() {
	if w.timeout <= 0 {
		return
	}
	w.since.Store(0)
	w.timer.Load().Stop()
}

// close stops the timer, so that a closed stream is not kept until it
// fires. A write still in progress is being ended by the close itself.
func (w *writeWatchdog) close() {
	if t := w.timer.Load(); t != nil {
		t.Stop()
	}
}

// check runs when the timer fires.
func (w *writeWatchdog) check() {
	st := w.since.Load()
	if st == 0 {
		return // the write finished in time
	}
	if left := w.timeout - (time.Since(w.epoch) - time.Duration(st-1)); left > 0 {
		w.timer.Load().Reset(left) // a later write, started after this timer was set
		return
	}
	w.once.Do(func() {
		err := fmt.Errorf("transport: %w: the peer took no message for %v (StreamOptions.WriteTimeout); it has stopped reading", ErrWriteTimeout, w.timeout)
		w.err.Store(&err)
		w.fail(err)
	})
}

// failed returns the error of a write that timed out, if one has.
func (w *writeWatchdog) failed() error {
	if p := w.err.Load(); p != nil {
		return *p
	}
	return nil
}
