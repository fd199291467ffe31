package mcphttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// MaxStateMessages bounds the state changes (resources/subscribe,
// resources/unsubscribe, logging/setLevel) a legacy session records in
// HandlerOptions.Sessions: every replica that serves the session replays
// them, so a client cannot grow the record without end. Beyond it such
// requests get 400; a client initializes a new session.
const MaxStateMessages = 1000

// MaxStateBytes bounds the bytes of a legacy session's record in
// HandlerOptions.Sessions, its initialize request included: every
// request of the session loads the record whole, on whichever replica,
// so a client that records large messages (padding, up to the body
// limit) must not make each of its requests a load of gigabytes. A state
// change beyond it gets 400, as beyond MaxStateMessages; an initialize
// larger than it, 400 and no session. Both bounds hold in the store
// (SessionStore.Append, ErrRecordFull): replicas that record changes at
// once, each knowing the record as it last loaded it, cannot pass them.
const MaxStateBytes = 1 << 20

// storeTimeout bounds a store operation made outside any request (an
// event appended as the server writes it).
const storeTimeout = 5 * time.Second

// replicated is what a session knows of its record in the SessionStore.
type replicated struct {
	catchSem chan struct{} // of 1, full while the record is applied or grown (lockCatch)
	applied  int           // the record's messages applied to this session
	recorded int           // the record's bytes, as far as this replica knows
	mine     map[int]bool  // positions of messages this replica recorded (and applied itself), past applied
	replays  int           // ids of replayed requests

	relayWaiting atomic.Bool  // a relayed change's catch-up waits for the catch-up lock (catchUpShared)
	relaying     atomic.Int32 // relayed messages being handed to the session (Handler.relayed), up to maxRelaying
}

// errSessionEnded is why a wait for a session's catch-up lock ends when
// the session does.
var errSessionEnded = errors.New("the session ended")

// lockCatch takes the session's catch-up lock, held while the record is
// applied or grown, or gives up when ctx ends or the session does. It is
// a channel of one, not a mutex, because it may be held for as long as a
// state change of this replica's own takes effect (a Subscribe hook that
// blocks, a wait for an in-flight slot): a request whose client went away
// meanwhile must not stay parked behind it, holding its goroutine, its
// loaded record and its place in the session. Nothing is held while it
// waits, so giving up orders no lock against another.
func (s *httpSession) lockCatch(ctx context.Context) error {
	select {
	case s.catchSem <- struct{}{}:
		return nil
	default:
	}
	if hook := s.h.testHookCatchWait.Load(); hook != nil {
		(*hook)()
	}
	select {
	case s.catchSem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-s.doneChan():
		return errSessionEnded
	}
}

// tryLockCatch takes the catch-up lock if no one holds it.
func (s *httpSession) tryLockCatch() bool {
	select {
	case s.catchSem <- struct{}{}:
		return true
	default:
		return false
	}
}

func (s *httpSession) unlockCatch() { <-s.catchSem }

// errCatchAbandoned is the answer to a request that stopped waiting for
// its session's catch-up lock, held by a state change in progress on this
// replica, because its context ended (its client went away) or the copy
// of the session here did. A client that is gone does not read it; any
// other retries.
func errCatchAbandoned() *httpError {
	e := httpErr(http.StatusServiceUnavailable, mcp.CodeInternalError,
		"gave up waiting for a state change of this session in progress on this replica; retry")
	e.retryAfter = time.Second
	return e
}

// stateMethods are the messages that change a legacy session's state,
// and so are recorded for the replicas that will serve it.
var stateMethods = map[string]bool{
	"notifications/initialized": true,
	"resources/subscribe":       true,
	"resources/unsubscribe":     true,
	"logging/setLevel":          true,
}

func (h *Handler) storeTTL() time.Duration {
	if h.opts.SessionTimeout > 0 {
		return h.opts.SessionTimeout
	}
	return DefaultSessionTimeout
}

// storeError is the answer when a store fails: the client retries, and
// the cause (which may name the store's address) goes only to the log.
func (h *Handler) storeError(what string, err error) *httpError {
	h.log.Warn("mcphttp: the session store failed", "op", what, "err", err)
	e := httpErr(http.StatusServiceUnavailable, mcp.CodeInternalError, "session store unavailable ("+what+"); retry later")
	e.retryAfter = time.Second
	return e
}

// shared finds session sid: in this process without a SessionStore;
// with one, in the store, adopted by this replica if it has not served it
// yet, and brought up to the record's state. A session the store no
// longer holds is ended here too. It returns nil, nil when there is no
// such session.
func (h *Handler) shared(r *http.Request, sid string, m *rpcMessage) (*httpSession, *httpError) {
	ctx := r.Context()
	s := h.session(sid)
	st := h.opts.Sessions
	if st == nil {
		return s, nil
	}
	if !validID(sid, false) {
		// Not an id this server makes: no store round trip, and no key
		// of the client's choosing (up to the header limit) in it.
		return nil, nil
	}
	if s != nil && !s.gone() && !s.sameIdentity(r) {
		// Refused before the load, which keeps the session alive in the
		// store: holding its ID without its token must not.
		return nil, errForbiddenIdentity().withID(m)
	}
	if s == nil || s.gone() {
		// Without a copy here, who opened the session is known only from
		// its record: loaded first without keeping the session alive
		// (ttl 0), so that a request with another identity's token is
		// refused before the store keeps the session, as above. The load
		// below keeps it once the request is admitted (a second load,
		// only as this replica adopts the session).
		rec, err := h.loadRecord(ctx, sid, 0)
		switch {
		case errors.Is(err, ErrNotFound):
			if s != nil {
				s.end()
			}
			return nil, nil
		case err != nil:
			return nil, h.storeError("load", err).withID(m)
		case !rec.opener.admits(r):
			return nil, errForbiddenIdentity().withID(m)
		}
	}
	rec, err := h.loadRecord(ctx, sid, h.storeTTL())
	if errors.Is(err, ErrNotFound) {
		if s != nil {
			s.end() // deleted or expired through another replica
		}
		return nil, nil
	}
	if err != nil {
		return nil, h.storeError("load", err).withID(m)
	}
	if s == nil || s.gone() {
		// None here, or a copy that idled out or ended meanwhile: the
		// session lives on in the store, and a fresh copy serves it,
		// if the request may use it at all: another identity's does not
		// make this replica run a copy and replay the session's state.
		if !rec.opener.admits(r) {
			return nil, errForbiddenIdentity().withID(m)
		}
		var e *httpError
		if s, e = h.adopt(sid, rec.opener); e != nil {
			return nil, e.withID(m)
		}
	}
	// The request's identity becomes the session's before its state is
	// replayed: what the replay runs (a Subscribe hook) sees it in
	// SessionAuth, as it did on the replica that served the change.
	if !s.sameIdentity(r) {
		return nil, errForbiddenIdentity().withID(m)
	}
	// Only a request waits for a catch-up. A response, a notification,
	// a GET or a DELETE is not served by the session's state, and may be
	// what frees the in-flight slot that this replica's own state change
	// waits for while it holds catch-ups off (record): a cancellation of
	// the call holding the slot, an answer the call waits for. They catch
	// up when no one else is at it, and otherwise leave it to the next.
	if m == nil || !m.isRequest() {
		// Nor is it refused when the catch-up fails (a replay refused
		// as busy): the answer it carries may be what frees the slot.
		if err := s.tryCatchUp(ctx, rec); err != nil {
			h.log.Debug("mcphttp: replaying a stored session failed; the next request retries", sessionRef(sid), "err", err)
		}
		return s, nil
	}
	if err := s.catchUp(ctx, rec); err != nil {
		if ctx.Err() != nil || errors.Is(err, errSessionEnded) {
			// The client went away, most likely while the request
			// waited for a state change in progress here, or the copy
			// here ended meanwhile (the retry adopts the session
			// afresh): no fault of the store's or the record's.
			h.log.Debug("mcphttp: a request ended before the session caught up with its record", sessionRef(sid), "err", err)
			return nil, errCatchAbandoned().withID(m)
		}
		h.log.Warn("mcphttp: replaying a stored session failed", sessionRef(sid), "err", err)
		return nil, httpErr(http.StatusServiceUnavailable, mcp.CodeInternalError, "session could not be restored on this replica; retry").withID(m)
	}
	return s, nil
}

// recordHead is the first entry of a session's record: its initialize
// request, and the identity whose token opened the session (none without
// authorization). A replica that adopts the session binds it to that
// identity, as the replica that opened it did; without it, an adopted
// session would be open to any token, or none.
type recordHead struct {
	Initialize json.RawMessage `json:"initialize"`
	Opener     *recordOpener   `json:"opener,omitempty"`
}

type recordOpener struct {
	Subject  string `json:"subject"`
	ClientID string `json:"client"`
}

// admits reports whether r may use a session its record says o opened,
// as sameIdentity does for a session bound here.
func (o *recordOpener) admits(r *http.Request) bool {
	if o == nil {
		return true
	}
	a := AuthFromContext(r.Context())
	return a != nil && a.Subject == o.Subject && a.ClientID == o.ClientID
}

// sessionRecord is a session's record as loaded: its messages, the
// initialize request first, who opened it, and its size in the store.
type sessionRecord struct {
	msgs   [][]byte
	opener *recordOpener
	bytes  int
}

// loadRecord loads session sid's record, keeping it for ttl (the
// session's timeout; 0 leaves its expiry as it is). A record that does
// not start with a recordHead is no session: ErrNotFound. The stores
// refuse an append to a record that is gone, but a replica of an earlier
// version, whose appends re-created a record deleted meanwhile, may
// still share the store during a rollout.
func (h *Handler) loadRecord(ctx context.Context, sid string, ttl time.Duration) (sessionRecord, error) {
	msgs, err := h.opts.Sessions.Load(ctx, sid, ttl)
	if err != nil {
		return sessionRecord{}, err
	}
	var head struct {
		recordHead
		// Every message a client gets recorded has a method, and a head
		// has none: a client's message that re-created the record is no
		// head, whatever other members the client gave it.
		Method json.RawMessage `json:"method"`
	}
	if len(msgs) == 0 || json.Unmarshal(msgs[0], &head) != nil || head.Initialize == nil || head.Method != nil {
		return sessionRecord{}, ErrNotFound
	}
	rec := sessionRecord{msgs: msgs, opener: head.Opener}
	for _, m := range msgs {
		rec.bytes += len(m)
	}
	msgs[0] = head.Initialize
	return rec, nil
}

// adopt opens, under the id of a stored session, a session of this
// replica, bound to the identity that opened it; catchUp then gives it
// the record's state.
func (h *Handler) adopt(sid string, opener *recordOpener) (*httpSession, *httpError) {
	h.adoptMu.Lock()
	defer h.adoptMu.Unlock()
	if s := h.session(sid); s != nil && !s.gone() {
		return s, nil
	}
	s := h.newSession(sid)
	if opener != nil {
		// Bound before it is registered: no request meets it unbound.
		// The request's own AuthInfo becomes the session's once
		// sameIdentity admits it.
		s.auth = &AuthInfo{Subject: opener.Subject, ClientID: opener.ClientID}
		s.ss.BindPrincipal(principalOf(s.auth))
	}
	if e := h.register(s, false); e != nil {
		s.end()
		return nil, e
	}
	return s, nil
}

// catchUp brings the session to the state of rec: its messages applied
// in the record's order.
//
// The record's order is the truth every replica must agree on, but a
// replica applies its own changes as it records them, before it has seen
// what other replicas recorded before them: for a message of another
// replica recorded ahead of one of this replica's own (two state changes
// sent through two replicas at once), this session has applied the two
// out of order. Replaying only the message it had not seen would leave
// it with the earlier change where every other replica has the later one
// (setLevel(debug) here, error there). So the replay runs from the first
// message not applied here through the end of the record, this replica's
// own messages after it included: these changes are state (the last
// level set wins; a URI is subscribed to or not), so a message applied
// again ends in the same state, and the session ends in the record's.
// This replica's own messages ahead of every unseen one are in their
// place already and are not replayed.
//
// That takes this replica's recorded messages to be applied already:
// record holds catch-ups off until the message it recorded has taken
// effect here (see post).
func (s *httpSession) catchUp(ctx context.Context, rec sessionRecord) error {
	if err := s.lockCatch(ctx); err != nil {
		return err
	}
	defer s.unlockCatch()
	return s.catchUpLocked(ctx, rec)
}

// tryCatchUp is catchUp, unless a catch-up runs or this replica's own
// state change holds them off: then it does nothing.
func (s *httpSession) tryCatchUp(ctx context.Context, rec sessionRecord) error {
	if !s.tryLockCatch() {
		return nil
	}
	defer s.unlockCatch()
	return s.catchUpLocked(ctx, rec)
}

func (s *httpSession) catchUpLocked(ctx context.Context, rec sessionRecord) error {
	// The record only grows: one loaded before this replica's latest
	// append is smaller than what this replica knows.
	s.recorded = max(s.recorded, rec.bytes)
	for s.mine[s.applied+1] {
		delete(s.mine, s.applied+1)
		s.applied++
	}
	if s.applied >= len(rec.msgs) {
		return nil
	}
	// Another replica's message is to be replayed, and this replica's
	// own after it with it. Own messages recorded since rec was loaded
	// are not in rec, and would stay applied ahead of those replayed
	// now, recorded before them: the record is loaded again. It holds
	// every append of this replica, since appends take the catch-up
	// lock.
	for n := range s.mine {
		if n > len(rec.msgs) {
			var err error
			if rec, err = s.h.loadRecord(ctx, s.id, s.h.storeTTL()); err != nil {
				return err
			}
			s.recorded = max(s.recorded, rec.bytes)
			break
		}
	}
	for i := s.applied; i < len(rec.msgs); i++ {
		if err := s.replay(ctx, rec.msgs[i]); err != nil {
			return err
		}
		delete(s.mine, i+1)
		s.applied = i + 1
	}
	return nil
}

// replay hands a recorded message to the session and waits for its
// answer, which nobody else receives. Requests get an id of their own,
// so they cannot meet a request of the client in progress.
func (s *httpSession) replay(ctx context.Context, raw []byte) error {
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(raw, &msg); err != nil {
		return err
	}
	if _, isRequest := msg["id"]; !isRequest {
		if !s.deliver(ctx, raw) {
			return errors.New("the session ended")
		}
		return nil
	}
	s.replays++
	msg["id"] = json.RawMessage(strconv.Quote("mcphttp-replay-" + strconv.Itoa(s.replays)))
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	m, e := parseMessage(b)
	if e != nil {
		return errors.New(e.err.Message)
	}
	p, e := s.expect(m, false)
	if e != nil {
		return errors.New(e.err.Message)
	}
	if !s.deliver(ctx, b) {
		s.forget(m)
		return errors.New("the session ended")
	}
	select {
	case resp := <-p.resp:
		if refusedBusy(resp) {
			// Not in effect here: the next catch-up replays it again.
			// Counted as applied, it would leave this replica apart
			// from the record for good.
			return errors.New("the session is busy (every in-flight slot taken)")
		}
		return nil
	case <-s.doneChan():
		return errors.New("the session ended")
	case <-ctx.Done():
		s.forget(m)
		return ctx.Err()
	}
}

// refusedBusy reports whether resp is the session's refusal for want of
// an in-flight slot (mcp.CodeServerBusy). Other errors (a Subscribe hook
// refusing) come the same on every replica, and count as applied.
func refusedBusy(resp []byte) bool {
	var r struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	return json.Unmarshal(resp, &r) == nil && r.Error != nil && r.Error.Code == mcp.CodeServerBusy
}

// record adds a message that changes the session's state to its record,
// before it is delivered here: the other replicas replay it. When it
// recorded the message, record returns holding off the session's
// catch-ups, and the caller calls settle once the message has taken
// effect here, or has failed to: catchUp takes this replica's recorded
// messages for applied, and one of another replica, recorded after this
// one but caught up before it took effect, would be overwritten by it.
//
// settle(false) is for a message the session refused as busy
// (refusedBusy): it is in the record, which only grows, and the other
// replicas apply it, so this replica must not count it as applied but
// replay it at its next catch-up, as it does a replayed message refused
// so. The client that was told it failed finds it in effect everywhere,
// as its retry would have left it.
func (s *httpSession) record(ctx context.Context, m *rpcMessage) (settle func(inEffect bool), e *httpError) {
	if s.h.opts.Sessions == nil || !stateMethods[m.method] || m.response {
		return nil, nil
	}
	if err := s.lockCatch(ctx); err != nil {
		// Given up before it was recorded: no replica applies it. A
		// copy that ended meanwhile gets the same 503: the session may
		// live on in the store (this replica shuts down), and the retry
		// finds out.
		s.h.log.Debug("mcphttp: a state change ended before it could be recorded", s.logRef(), "err", err)
		return nil, errCatchAbandoned().withID(m)
	}
	// What this replica knows of the record refuses without a round
	// trip; the store checks the bounds against the record itself
	// (ErrRecordFull), which other replicas may have grown meanwhile.
	if s.applied+len(s.mine) >= MaxStateMessages || s.recorded+len(m.raw) > MaxStateBytes {
		s.unlockCatch()
		return nil, errRecordFull().withID(m)
	}
	n, e := s.appendLocked(ctx, m.raw)
	if e != nil {
		s.unlockCatch()
		if e.status == http.StatusNotFound {
			s.end() // gone for every replica, as shared ends it
		}
		return nil, e.withID(m)
	}
	return func(inEffect bool) {
		if !inEffect {
			// The lock is still held: no catch-up has counted n as
			// applied.
			delete(s.mine, n)
		}
		s.unlockCatch()
	}, nil
}

// errRecordFull is the answer to a state change beyond the bounds of the
// session's record.
func errRecordFull() *httpError {
	return httpErr(http.StatusBadRequest, mcp.CodeInvalidRequest,
		"invalid request: this session has recorded the most subscription and log level changes it keeps ("+
			strconv.Itoa(MaxStateMessages)+" changes, "+strconv.Itoa(MaxStateBytes)+" bytes with its initialize); initialize a new session")
}

// keep records the initialize request of a session it answered, with
// the identity that opened it, as the record's head.
func (s *httpSession) keep(ctx context.Context, raw []byte) *httpError {
	if s.h.opts.Sessions == nil {
		return nil
	}
	head := recordHead{Initialize: raw}
	if s.auth != nil {
		head.Opener = &recordOpener{Subject: s.auth.Subject, ClientID: s.auth.ClientID}
	}
	b, err := json.Marshal(head)
	if err != nil {
		return httpErr(http.StatusInternalServerError, mcp.CodeInternalError, "recording the session failed")
	}
	if len(b) > MaxStateBytes {
		return httpErr(http.StatusBadRequest, mcp.CodeInvalidRequest,
			"invalid request: an initialize request of a session is recorded for the server's replicas, in at most "+strconv.Itoa(MaxStateBytes)+" bytes; this one is larger")
	}
	// A session being initialized: no one else holds the lock yet.
	if err := s.lockCatch(ctx); err != nil {
		return httpErr(http.StatusServiceUnavailable, mcp.CodeInternalError, "recording the session failed: "+err.Error())
	}
	defer s.unlockCatch()
	// The head is created, not appended: appends find a record with its
	// head or none (see SessionStore.Append). If the store wrote it but
	// its reply was lost, the session is refused all the same, and the
	// record, whose id no client is given, expires with its ttl.
	if err := s.h.opts.Sessions.Create(ctx, s.id, b, s.h.storeTTL()); err != nil {
		if errors.Is(err, ErrRecordFull) {
			return errRecordFull()
		}
		return s.h.storeError("create", err)
	}
	if s.mine == nil {
		s.mine = map[int]bool{}
	}
	s.mine[1] = true
	s.recorded = len(b)
	return nil
}

// appendLocked appends raw to the session's record as this replica's
// own message, and returns its position.
func (s *httpSession) appendLocked(ctx context.Context, raw []byte) (int, *httpError) {
	n, err := s.h.opts.Sessions.Append(ctx, s.id, raw, s.h.storeTTL())
	if errors.Is(err, ErrRecordFull) {
		return 0, errRecordFull()
	}
	if errors.Is(err, ErrNotFound) {
		// Deleted or expired through another replica since this
		// request loaded the record: nothing was stored.
		return 0, errSessionGone()
	}
	if err != nil {
		// The outcome is unknown: a store whose reply was lost (a
		// timeout) may have written the message, and then every other
		// replica applies it. The answer follows what the record holds;
		// a record that is gone means the session is, whatever the
		// append did.
		var gone bool
		if n, gone = s.findAppendedLocked(ctx, raw); gone {
			return 0, errSessionGone()
		}
		if n == 0 {
			return 0, s.h.storeError("append", err)
		}
		s.h.log.Debug("mcphttp: an append that failed is in the session's record", s.logRef(), "position", n, "err", err)
	}
	if s.mine == nil {
		s.mine = map[int]bool{}
	}
	s.mine[n] = true
	s.recorded += len(raw)
	return n, nil
}

// findAppendedLocked returns the position of raw in the session's record
// past every message this replica knew of before appending it, or 0 if
// it is not there or the record cannot be read; gone reports that the
// store holds no such session (deleted, or expired, meanwhile). What this replica knew
// (applied, and its own appends) was there before: a message of the same
// bytes recorded earlier is not taken for this one. One another replica
// recorded meanwhile with the same bytes (the client sent the same
// message twice at once) may be; each copy then applies one of the two,
// as each replica would for a change that was recorded once.
func (s *httpSession) findAppendedLocked(ctx context.Context, raw []byte) (n int, gone bool) {
	known := s.applied
	for n := range s.mine {
		known = max(known, n)
	}
	// Not kept alive by the check: the append, if it was written, did.
	msgs, err := s.h.opts.Sessions.Load(ctx, s.id, 0)
	if err != nil {
		return 0, errors.Is(err, ErrNotFound)
	}
	for i := known; i < len(msgs); i++ {
		if bytes.Equal(msgs[i], raw) {
			return i + 1, false
		}
	}
	return 0, false
}

// forgetShared deletes a session from the store, for every replica.
func (h *Handler) forgetShared(ctx context.Context, sid string) *httpError {
	if h.opts.Sessions == nil {
		return nil
	}
	if err := h.opts.Sessions.Delete(ctx, sid); err != nil {
		return h.storeError("delete", err)
	}
	return nil
}

// storedPush is an event pushed to a stream, for the EventStore.
type storedPush struct {
	es    *eventStream
	n     int // 0: not pushed
	data  []byte
	final bool
}

// eventAppendTimeout bounds the append of an event to
// HandlerOptions.Events, which the session's writer waits for: stored
// before the writer goes on, an event the client has read is there for
// the replica it resumes on, even if this one is killed at once.
const eventAppendTimeout = time.Second

// eventStoreRest is how long a Handler stops storing events after an
// append failed: a store that stops answering would otherwise hold every
// message of every session for eventAppendTimeout.
const eventStoreRest = 30 * time.Second

// store appends an event of a POST stream to HandlerOptions.Events. A
// store that fails costs only resumption on other replicas: the stream
// is still served and retained here. After a failure the Handler rests
// (eventStoreRest): a stalled store delays a session's message once, not
// each of them. A stream that missed an event is stored no further. A
// stream's events are appended in the order they were numbered
// (storeTurn).
func (s *httpSession) store(p storedPush) {
	ev := s.h.opts.Events
	if ev == nil || p.n == 0 || s.id == "" || p.es == s.standalone {
		return
	}
	defer p.es.storeTurn(p.n)()
	if p.es.unstored.Load() {
		return
	}
	if until := s.h.eventsRest.Load(); until != 0 && s.h.now().UnixNano() < until {
		p.es.unstored.Store(true)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), eventAppendTimeout)
	defer cancel()
	if err := ev.Append(ctx, s.id, p.es.id, StoredEvent{N: p.n, Data: p.data}, p.final, s.h.opts.RetainFor); err != nil {
		p.es.unstored.Store(true)
		s.h.eventsRest.Store(s.h.now().Add(eventStoreRest).UnixNano())
		s.h.log.Warn("mcphttp: storing a stream's event failed; events are not stored for "+eventStoreRest.String()+", and streams meanwhile resume only on this replica",
			s.logRef(), "stream", p.es.id, "err", err)
	}
}

// resumeStored serves a Last-Event-ID for a stream this replica does not
// hold, from the EventStore: the stored events after n, then the end of
// the response. If the stream is not finished, the client resumes again
// after the retry delay, reaching the events stored meanwhile.
func (h *Handler) resumeStored(w http.ResponseWriter, r *http.Request, s *httpSession, id string, n int) {
	var evs []StoredEvent
	var final bool
	err := ErrNotFound
	if validID(id, true) {
		evs, final, err = h.opts.Events.Replay(r.Context(), s.id, id, n)
	}
	if errors.Is(err, ErrNotFound) {
		writeHTTPError(w, errStreamGone(id))
		return
	}
	if err == nil && len(evs) == 0 && n > 0 {
		// Nothing after n: n is the stream's last event, or beyond it.
		// The newest event is always stored, so event n is there if it
		// was issued (stored before it was sent); one appended since the
		// first Replay is found too, as appends come in order.
		var at []StoredEvent
		at, _, err = h.opts.Events.Replay(r.Context(), s.id, id, n-1)
		if err == nil && (len(at) == 0 || at[0].N != n) {
			writeHTTPError(w, errFutureEvent(id, n))
			return
		}
		if errors.Is(err, ErrNotFound) {
			writeHTTPError(w, errStreamGone(id))
			return
		}
	}
	if err != nil {
		writeHTTPError(w, h.storeError("replay", err))
		return
	}
	sw := startSSE(w, s.id)
	_ = sw.rc.SetReadDeadline(time.Time{})
	es := &eventStream{id: id}
	for _, e := range evs {
		if sw.event(es.eventID(e.N), e.Data) != nil {
			return
		}
	}
	if !final {
		_ = sw.write([]byte("retry: " + strconv.FormatInt(h.opts.Retry.Milliseconds(), 10) + "\n\n"))
	}
}

// keepShared keeps a session alive in the SessionStore while a GET
// stream of it is open here, as the stream keeps it alive in this
// process: the client may send nothing else for longer than the
// session's timeout. It loads the session every third of the timeout,
// and ends the session here if the store no longer has it (deleted
// through another replica). The returned func stops it.
func (h *Handler) keepShared(s *httpSession) (stop func()) {
	if h.opts.Sessions == nil {
		return func() {}
	}
	ttl := h.storeTTL()
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-s.doneChan():
				return
			case <-t.C:
				// Read as every request reads it: a record that a
				// client's message re-created is no session. What it
				// holds is caught up with: the stream hears of a change
				// made through another replica even if no Relay
				// announced it (this replica was cut off from Redis at
				// the time, or there is no Relay).
				ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
				rec, err := h.loadRecord(ctx, s.id, ttl)
				if err == nil {
					err = s.tryCatchUp(ctx, rec)
				}
				cancel()
				switch {
				case errors.Is(err, ErrNotFound):
					h.log.Debug("mcphttp: the session was deleted through another replica", s.logRef())
					s.end()
					return
				case err != nil:
					h.log.Warn("mcphttp: keeping a session alive in the store, or catching up with it, failed", s.logRef(), "err", err)
				}
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
	}
}

// validID reports whether id has the form of what newSessionID makes (32
// lowercase hex digits), or with stream set, of a stream id of a
// replicated handler (8 hex digits, "-", a decimal number): ids a client
// sends are checked before they name a key in a store.
func validID(id string, stream bool) bool {
	if stream {
		prefix, num, ok := strings.Cut(id, "-")
		if !ok || len(prefix) != 8 || len(num) == 0 || len(num) > 19 || strings.Trim(num, "0123456789") != "" {
			return false
		}
		id = prefix
	} else if len(id) != 32 {
		return false
	}
	return strings.Trim(id, "0123456789abcdef") == ""
}
