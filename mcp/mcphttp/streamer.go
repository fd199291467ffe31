package mcphttp

import (
	"net/http"
	"sync"
)

// A streamer serves the SSE stream of a request while the request runs on
// its POST's goroutine (ServeDirect). Most requests answer quickly with
// nothing before their response, and their POST answers with plain JSON
// once the handler returns, without another goroutine. The streamer starts
// a goroutine that serves the stream to the client only when the request
// sends something before its response (progress, a log message, a request
// to the client) or, in a legacy session, when it has run for quickAnswer
// (its stream then starts with the priming event that makes it
// resumable), so that what the request sends reaches the client while it
// runs, as it did when the POST's goroutine only waited.
type streamer struct {
	// What run answers: the request's, held here rather than in a
	// closure, which cost an allocation per request.
	h *Handler
	w http.ResponseWriter
	r *http.Request
	s *httpSession
	m *rpcMessage
	p *pendingCall

	mu      sync.Mutex
	started bool
	ended   bool // finish was called: no more starts
	done    chan struct{}
}

// newStreamer arms a streamer for the stream of request m: the stream
// starts it on a push. In a legacy session the caller also starts it
// after quickAnswer (watchPost), and stops that before finish.
func (h *Handler) newStreamer(w http.ResponseWriter, r *http.Request, s *httpSession, m *rpcMessage, p *pendingCall) *streamer {
	st := &streamer{h: h, w: w, r: r, s: s, m: m, p: p}
	p.stream.mu.Lock()
	p.stream.onPush = st
	p.stream.mu.Unlock()
	return st
}

// run serves the stream: answer, with no wait for a quick response.
func (st *streamer) run() { st.h.answer(st.w, st.r, st.s, st.m, st.p, 0) }

// start serves the stream on a goroutine of its own, once, unless the
// request has finished.
func (st *streamer) start() {
	st.mu.Lock()
	if st.started || st.ended {
		st.mu.Unlock()
		return
	}
	st.started = true
	st.done = make(chan struct{})
	st.mu.Unlock()
	go func() {
		defer close(st.done)
		st.run()
	}()
}

// finish is called once the request has returned. It reports whether the
// stream was being served, after waiting until the serving ends (the
// response, which was queued, is written; or the client went away); if
// not, the POST's goroutine answers.
func (st *streamer) finish() bool {
	return st.abandon()
}

// abandon stops the streamer from starting, as the client has gone, and
// reports whether it had started, after waiting for it to end.
func (st *streamer) abandon() bool {
	st.mu.Lock()
	st.ended = true
	started := st.started
	st.mu.Unlock()
	if started {
		<-st.done
	}
	return started
}
