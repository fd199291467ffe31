package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/winbridge/winbridge/transport"
)

// maxAsked bounds the ids of a session's requests to its client that a
// replica remembers for its Relay; a client that never answers cannot
// grow it without end. Past it the oldest are forgotten at once, and
// answers to them are dropped as answers to no request.
const maxAsked = 1024

// relayTimeout bounds handing a relayed message to a session.
const relayTimeout = 5 * time.Second

// maxRelaying bounds the relayed messages of one session being handed to
// it at once, each on a goroutine for up to relayTimeout: while the
// session reads nothing (its in-flight slots all taken), a client
// POSTing cancellations to another replica, which answers each with a
// 202 at once, would otherwise park goroutines here as fast as it
// sends. Past it a message is dropped, as one that waited relayTimeout
// is: only that session's client loses by it.
const maxRelaying = 16

// relayed is a message on the Relay: from which replica, for which session.
type relayed struct {
	From    string          `json:"from"`
	Session string          `json:"session"`
	Msg     json.RawMessage `json:"msg"`
}

// askingLocked remembers the id of a request the session sends its client.
func (s *httpSession) askingLocked(raw json.RawMessage) {
	id, err := transport.ParseID(raw)
	if err != nil || id.IsZero() {
		return // a notification
	}
	if s.asked == nil || len(s.asked) >= maxAsked {
		s.asked = map[string]bool{}
	}
	s.asked[id.Key()] = true
}

// answers reports whether msg answers a request this replica's session
// sent, forgetting the request if so.
func (s *httpSession) answers(m *rpcMessage) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.asked[m.id.Key()] {
		return false
	}
	delete(s.asked, m.id.Key())
	return true
}

// relay sends through the Relay what another replica may be waiting for,
// and reports whether that is all there is to do: a response to a request
// this replica did not send goes only there; a notifications/cancelled
// goes there and is delivered here too; a change of the session's state
// (already recorded in the store) tells the replicas that serve the
// session to catch up with it now, so that, say, a GET stream open on
// another replica hears of a resource subscribed to here.
func (h *Handler) relay(ctx context.Context, s *httpSession, m *rpcMessage) bool {
	if h.opts.Relay == nil || s.id == "" {
		return false
	}
	switch {
	case m.response:
		if s.answers(m) {
			return false
		}
	case m.method == "notifications/cancelled":
	case stateMethods[m.method] && h.opts.Sessions != nil:
	default:
		return false
	}
	b, _ := json.Marshal(relayed{From: h.replica, Session: s.id, Msg: m.raw})
	if err := h.opts.Relay.Send(ctx, b); err != nil {
		h.log.Warn("mcphttp: relaying a message to the other replicas failed", s.logRef(), "err", err)
	}
	return m.response
}

// relayed delivers a message from another replica to the session here
// that waits for it.
func (h *Handler) relayed(b []byte) {
	var r relayed
	if json.Unmarshal(b, &r) != nil || r.From == h.replica {
		return
	}
	s := h.session(r.Session)
	if s == nil {
		return
	}
	m, e := parseMessage(r.Msg)
	if e != nil || (m.response && !s.answers(m)) {
		return
	}
	if stateMethods[m.method] {
		go h.catchUpShared(s)
		return
	}
	if s.relaying.Add(1) > maxRelaying {
		s.relaying.Add(-1)
		h.log.Debug("mcphttp: dropped a relayed message: the session has taken none of the last ones", s.logRef(), "max", maxRelaying)
		return
	}
	go func() {
		defer s.relaying.Add(-1)
		ctx, cancel := context.WithTimeout(context.Background(), relayTimeout)
		defer cancel()
		s.deliver(ctx, m.raw)
	}()
}

// catchUpShared brings this replica's copy of a session up to its record
// in the store.
//
// At most one catch-up waits for the session's catch-up lock: while this
// replica's own state change holds it (waiting for an in-flight slot, or
// in a Subscribe hook that blocks), every further change relayed by
// other replicas would otherwise park a goroutine here, each holding a
// record of up to MaxStateBytes it loaded before waiting. The one that
// waits loads the record once it has the lock, which covers every change
// relayed before it took it, and its store timeout starts then: one that
// had run out while it waited would fail the catch-up it was sent for.
func (h *Handler) catchUpShared(s *httpSession) {
	if !s.relayWaiting.CompareAndSwap(false, true) {
		return // the waiting one loads the record after this change
	}
	// It waits until the session ends at most: the lock is abandoned
	// then, not left to a goroutine parked for good.
	err := s.lockCatch(context.Background())
	s.relayWaiting.Store(false)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	rec, err := h.loadRecord(ctx, s.id, h.storeTTL())
	if err == nil {
		err = s.catchUpLocked(ctx, rec)
	}
	s.unlockCatch()
	if errors.Is(err, ErrNotFound) {
		s.end() // deleted or expired through another replica, as in shared
		return
	}
	if err != nil {
		h.log.Warn("mcphttp: catching up with a session changed on another replica failed", s.logRef(), "err", err)
	}
}
