package mcphttp

import (
	"context"
	"sync"
	"time"
)

// A legacy session's request outlives its POST, so the POST watches its
// client: when the client walks away, the POST stops counting against
// MaxInFlight and the session's idle timeout (Handler.abandoned).
// context.AfterFunc on the request's context did that from the start, at
// about 450 bytes per POST (the context's done channel and children map),
// for requests that nearly all answer within a millisecond. lateWatch
// arms it only once the request has run for watchAfter: a client that
// walks away sooner is noticed then.
const watchAfter = quickAnswer

type lateWatch struct {
	ctx   context.Context
	f     func()
	also  *streamer // started on the same timer after arming, or nil (watchLateWith)
	timer *time.Timer

	mu      sync.Mutex
	stopped bool        // release was called
	stop    func() bool // context.AfterFunc's, once armed
}

// watchLate calls f in its own goroutine once ctx is done, as
// context.AfterFunc does, but starts watching ctx only after watchAfter.
// The returned release stops it, and reports false if f ran or runs.
func watchLate(ctx context.Context, f func()) (release func() bool) {
	return watchLateWith(ctx, f, nil)
}

// watchLateWith is watchLate that also starts also, if not nil, when the
// watch arms, unless release came first: a legacy request's streamer
// starts after quickAnswer, which is watchAfter, and rides on this timer
// instead of a second one (each costs an allocation and the runtime
// timer heap's lock twice, and its arming may wake the network poller).
// release stops both: also never starts after release has returned true.
func watchLateWith(ctx context.Context, f func(), also *streamer) (release func() bool) {
	lw := &lateWatch{ctx: ctx, f: f, also: also}
	lw.timer = time.AfterFunc(watchAfter, lw.fire)
	return lw.release
}

// fire is the timer's: arm the watch, then start also.
func (lw *lateWatch) fire() {
	lw.arm()
	if lw.also != nil {
		lw.also.start()
	}
}

func (lw *lateWatch) arm() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if !lw.stopped {
		lw.stop = context.AfterFunc(lw.ctx, lw.f)
	}
}

func (lw *lateWatch) release() bool {
	if lw.timer.Stop() {
		return true // never armed
	}
	lw.mu.Lock()
	lw.stopped = true
	stop := lw.stop
	lw.mu.Unlock()
	if stop == nil {
		return true // the timer fired, and arm found it released
	}
	return stop()
}
