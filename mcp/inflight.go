package mcp

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/winbridge/winbridge/transport"
)

// Defaults of the per-session bounds in ServerOptions.
const (
	// DefaultMaxInFlight is ServerOptions.MaxInFlight when unset.
	DefaultMaxInFlight = 256
	// DefaultShutdownTimeout is ServerOptions.ShutdownTimeout when unset.
	DefaultShutdownTimeout = 10 * time.Second
	// DefaultMaxInFlightBytes is ServerOptions.MaxInFlightBytes when unset.
	DefaultMaxInFlightBytes = 64 << 20
	// DefaultMaxParamsMemory is ServerOptions.MaxParamsMemory when unset:
	// two and a half times the largest message the transports accept by
	// default (transport.DefaultMaxMessageSize and mcphttp's default body
	// bound, 32 MiB), so that text arguments of any size they accept
	// (estimated at twice their bytes) pass with room for the envelope.
	// It is below the client's bound on results (256 MiB) because a
	// server decodes many requests at once, of many sessions.
	DefaultMaxParamsMemory = 80 << 20
	// DefaultMaxSubscriptions is ServerOptions.MaxSubscriptions when unset.
	DefaultMaxSubscriptions = 1024
	// DefaultMaxListeners is ServerOptions.MaxListeners when unset.
	DefaultMaxListeners = 256
)

// CodeServerBusy answers a request that arrived while the session already
// had ServerOptions.MaxInFlight requests in progress, some of them waiting
// on the client. It is in JSON-RPC's range for server errors; the
// client may retry once some of its requests have completed.
const CodeServerBusy = -32010

// admit takes an in-flight slot for a request, on the read loop.
//
// A request holds its slot while it is handled and until its reply is
// written, so a client that sends requests without reading the replies
// cannot make the session buffer them without bound. When every slot is
// taken, the read loop waits for one: the server stops reading
// (backpressure) until replies are written and handlers return. With one
// exception: while some handler waits on the client itself (a request to
// the client, such as sampling, elicitation or roots, or an open
// subscriptions/listen), waiting could stop the read loop from ever
// reading what that handler waits for, so the request is refused at once
// with CodeServerBusy instead, and reading goes on.
//
// The slots also count the bytes of the requests' params (size), which
// the session holds while they wait and run: MaxInFlight requests of the
// largest message size would otherwise be gigabytes. A request larger
// than MaxInFlightBytes alone is still admitted when nothing else is in
// flight.
//
// admit reports whether the request may run; false with busy false means
// the session ended while it waited.
func (ss *ServerSession) admit(ctx context.Context, size int) (ok, busy bool) {
	for {
		ss.mu.Lock()
		switch {
		case ss.ending:
			ss.mu.Unlock()
			return false, false
		case ss.active < ss.srv.opts.MaxInFlight &&
			(ss.active == 0 || ss.activeBytes+int64(size) <= ss.srv.opts.MaxInFlightBytes):
			ss.active++
			ss.activeBytes += int64(size)
			ss.mu.Unlock()
			return true, false
		case ss.onClient > 0:
			ss.mu.Unlock()
			return false, true
		}
		wake := ss.wakeLocked()
		ss.mu.Unlock()
		if hook := testHookAdmitWait.Load(); hook != nil {
			(*hook)(ss)
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return false, false
		case <-ss.doneChan():
			return false, false
		}
	}
}

// testHookAdmitWait, when set by a test, is called each time the read loop
// starts waiting for an in-flight slot.
var testHookAdmitWait atomic.Pointer[func(*ServerSession)]

// wakeLocked returns a channel closed at the next change of the in-flight
// counts. ss.mu is held.
func (ss *ServerSession) wakeLocked() <-chan struct{} {
	if ss.wake == nil {
		ss.wake = make(chan struct{})
	}
	return ss.wake
}

// changedLocked wakes whoever waits on the in-flight counts. ss.mu is held.
func (ss *ServerSession) changedLocked() {
	if ss.wake != nil {
		close(ss.wake)
		ss.wake = nil
	}
}

// leave gives back the slot and bytes admit took, once the request's
// reply is written or the request was released.
func (ss *ServerSession) leave(size int) {
	ss.mu.Lock()
	ss.active--
	ss.activeBytes -= int64(size)
	ss.changedLocked()
	ss.mu.Unlock()
}

// waitOnClient marks a handler as waiting on the client until the
// returned function is called (see admit).
func (ss *ServerSession) waitOnClient() (done func()) {
	ss.mu.Lock()
	ss.onClient++
	ss.changedLocked()
	ss.mu.Unlock()
	return func() {
		ss.mu.Lock()
		ss.onClient--
		ss.changedLocked()
		ss.mu.Unlock()
	}
}

// busy answers a request refused by admit, from the read loop. The write
// itself is the backpressure if the client is not reading its replies.
func (ss *ServerSession) busy(ctx context.Context, r *transport.Request) {
	n := strconv.Itoa(ss.srv.opts.MaxInFlight)
	_ = ss.connFor(r).ReplyError(ctx, r, &Error{Code: CodeServerBusy,
		Message: "server busy: this session already has up to " + n + " requests in progress (ServerOptions.MaxInFlight, MaxInFlightBytes); retry when some have completed"})
}

// shutdown marks the session as ending and cancels every handler still
// running or waiting for a slot. Requests read afterwards are not run.
func (ss *ServerSession) shutdown() {
	ss.mu.Lock()
	ss.ending = true
	for _, inf := range ss.running.All() {
		inf.cancel()
	}
	ss.changedLocked()
	ss.mu.Unlock()
}

// ErrHandlersRunning is returned by ServerSession.Wait when handlers were
// still running after ServerOptions.ShutdownTimeout.
var ErrHandlersRunning = errors.New("mcp: request handlers still running after the shutdown timeout")

// Wait waits until the session has ended and every request it admitted
// has finished (its handler returned, cancelled when the session ended,
// and its reply was written or dropped), at most
// ServerOptions.ShutdownTimeout after the end, or until ctx is done. It
// returns nil, ErrHandlersRunning or ctx.Err(). Run waits this way;
// transports that end sessions themselves (mcphttp) call Wait so that a
// program does not exit while a tool is still killing its process tree.
func (ss *ServerSession) Wait(ctx context.Context) error {
	select {
	case <-ss.doneChan():
	case <-ctx.Done():
		return ctx.Err()
	}
	return ss.awaitHandlers(ctx, ss.srv.opts.ShutdownTimeout)
}

// awaitHandlers waits until every admitted request has finished (its
// handler returned and its reply was written or dropped), or until grace
// has passed (ErrHandlersRunning) or ctx is done.
func (ss *ServerSession) awaitHandlers(ctx context.Context, grace time.Duration) error {
	var expired <-chan time.Time
	for {
		ss.mu.Lock()
		n := ss.active
		if n == 0 {
			ss.mu.Unlock()
			return nil
		}
		wake := ss.wakeLocked()
		ss.mu.Unlock()
		if grace < 0 {
			return ErrHandlersRunning
		}
		// The timer only once there is something to wait for: most
		// sessions (every stateless request's, over HTTP) end idle.
		if grace > 0 && expired == nil {
			t := time.NewTimer(grace)
			defer t.Stop()
			expired = t.C
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		case <-expired:
			ss.srv.log.Warn("mcp: handlers still running after the shutdown timeout; giving up on them",
				"count", n, "timeout", grace)
			return ErrHandlersRunning
		}
	}
}
