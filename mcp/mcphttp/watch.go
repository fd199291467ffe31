package mcphttp

import (
	"context"
	"net/http"
	"sync"

	"github.com/winbridge/winbridge/internal/delayq"
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
	// The wait for watchAfter, in the Handler's queue (Handler.late):
	// a timer per POST, set and stopped within a millisecond, cost a
	// sequential client 7% of its calls per second (internal/delayq).
	delayq.Entry
	q    *delayq.Queue
	ctx  context.Context
	f    func()    // run instead of abandoning the request, by tests; nil for a POST's watch
	also *streamer // started with the watch's arming, or nil (watchPost)
	// What a POST's watch abandons (Handler.abandoned): held here, and
	// made into a func only when the watch arms, rarely, instead of a
	// closure per request.
	h  *Handler
	r  *http.Request // whose identity the abandoned POST gives back (Handler.counted)
	s  *httpSession
	es *eventStream

	mu      sync.Mutex
	stopped bool        // release was called
	stop    func() bool // context.AfterFunc's, once armed
}

// watchPost watches a legacy session's POST, after watchAfter: once r's
// context is done it abandons the request (Handler.abandoned), and it
// also starts st, if not nil, when the watch arms, unless release came
// first. The streamer starts after quickAnswer, which is watchAfter, and
// rides on the same wait. lw.release stops both: st never starts after
// release has returned true.
func (h *Handler) watchPost(r *http.Request, s *httpSession, st *streamer, es *eventStream) *lateWatch {
	lw := &lateWatch{q: h.late, ctx: r.Context(), also: st, h: h, r: r, s: s, es: es}
	lw.q.Add(&lw.Entry, lw)
	return lw
}

// abandon is what a POST's watch runs once armed and its client gone.
func (lw *lateWatch) abandon() { lw.h.abandoned(lw.s, lw.also, lw.es, lw.h.counted(lw.r)) }

// Due is the queue's, once the POST has run for watchAfter: arm the
// watch, then start also (on a goroutine of its own).
func (lw *lateWatch) Due() {
	lw.arm()
	if lw.also != nil {
		lw.also.start()
	}
}

func (lw *lateWatch) arm() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if !lw.stopped {
		f := lw.f
		if f == nil {
			f = lw.abandon
		}
		lw.stop = context.AfterFunc(lw.ctx, f)
	}
}

func (lw *lateWatch) release() bool {
	if lw.q.Remove(&lw.Entry) {
		return true // never armed
	}
	lw.mu.Lock()
	lw.stopped = true
	stop := lw.stop
	lw.mu.Unlock()
	if stop == nil {
		return true // the wait fell due, and arm found it released
	}
	return stop()
}
