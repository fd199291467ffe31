package mcphttp

import (
	"bytes"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// eventStream is the ordered messages of one SSE response: the stream of
// one POST, or a session's standalone stream (the GET stream). Events are
// numbered from 1 and kept, up to a limit, after they are written, so that
// a client that lost the connection can resume with Last-Event-ID; a POST
// stream's response is therefore never lost to a dropped connection.
type eventStream struct {
	id    string // "" for streams that cannot be resumed (stateless)
	limit int
	now   func() time.Time

	mu       sync.Mutex
	events   []queuedEvent
	bytes    int64     // of events
	left     time.Time // when it was created or its last reader left
	leftSeq  uint64    // orders streams that left at the same clock reading
	next     int       // number of the next event
	sent     int       // number of the last event written to a client
	final    bool      // the last event is queued: the stream ends after it
	closed   bool      // the session ended: writers stop at once
	attached bool      // a writer is serving the stream
	wake     chan struct{}
	// onPush, if set, is started after each event but the final one is
	// queued: a request running on its POST's goroutine starts serving
	// its stream then. A pointer, not a func: a method value cost an
	// allocation per request.
	onPush *streamer
	// unstored: an event of the stream was not appended to
	// HandlerOptions.Events (the append failed, or the Handler rested
	// after another failed). None after it is: a replica that resumes
	// the stream from the store must not serve the events after the
	// hole as the ones that followed those before it.
	unstored atomic.Bool
	// storeMu and storeTurn order the appends of the stream's events to
	// HandlerOptions.Events by number: stored is the last event whose
	// append is done (or skipped). See storeTurn.
	storeMu   sync.Mutex
	storeCond *sync.Cond // on storeMu; made on first use
	stored    int
}

type queuedEvent struct {
	n    int
	data []byte
}

func newEventStream(id string, limit int, now func() time.Time) *eventStream {
	return &eventStream{id: id, limit: limit, now: now, left: now(), leftSeq: leaveSeq.Add(1), next: 1, wake: make(chan struct{}, 1)}
}

// push queues a message; final marks it the stream's last. It returns
// the event's number, or 0 if the stream takes no more events.
func (es *eventStream) push(msg []byte, final bool) int {
	es.mu.Lock()
	if es.closed || es.final {
		es.mu.Unlock()
		return 0
	}
	n := es.next
	es.events = append(es.events, queuedEvent{n: es.next, data: msg})
	es.bytes += int64(len(msg))
	es.next++
	if len(es.events) > es.limit {
		es.dropLocked(len(es.events) - es.limit)
	}
	es.final = final
	onPush := es.onPush
	es.mu.Unlock()
	es.signal()
	if onPush != nil && !final {
		onPush.start()
	}
	return n
}

// storeTurn waits until the append of every event before n is done,
// and returns the func that marks n's done: pushed under the session's
// lock, a stream's events are appended outside it, where a writer that
// pushed later (the final response) could otherwise overtake one that
// pushed before (a handler's goroutine still sending progress). Every
// numbered event of a stored stream takes its turn, so none waits for
// one that never comes.
func (es *eventStream) storeTurn(n int) (done func()) {
	es.storeMu.Lock()
	if es.storeCond == nil {
		es.storeCond = sync.NewCond(&es.storeMu)
	}
	for es.stored < n-1 {
		es.storeCond.Wait()
	}
	es.storeMu.Unlock()
	return func() {
		es.storeMu.Lock()
		es.stored = n
		es.storeCond.Broadcast()
		es.storeMu.Unlock()
	}
}

// dropLocked forgets the k oldest events.
func (es *eventStream) dropLocked(k int) {
	for _, e := range es.events[:k] {
		es.bytes -= int64(len(e.data))
	}
	clear(es.events[:k])
	es.events = es.events[k:]
}

// trim forgets the oldest events, keeping the newest, until n bytes are
// freed.
func (es *eventStream) trim(n int64) {
	es.mu.Lock()
	defer es.mu.Unlock()
	k, freed := 0, int64(0)
	for k < len(es.events)-1 && freed < n {
		freed += int64(len(es.events[k].data))
		k++
	}
	es.dropLocked(k)
}

// state reports whether a reader serves the stream, since when none
// does, and the bytes it holds.
func (es *eventStream) state() (attached bool, left time.Time, seq uint64, bytes int64) {
	es.mu.Lock()
	defer es.mu.Unlock()
	return es.attached, es.left, es.leftSeq, es.bytes
}

// leaveSeq numbers the moments streams are created or left, so that the
// stream left longest ago is well defined even when the clock reads the
// same for several (a coarse clock, or a test's fixed one).
var leaveSeq atomic.Uint64

// close ends the stream and frees its events: readers stop at once.
func (es *eventStream) close() {
	es.mu.Lock()
	es.closed = true
	es.events, es.bytes = nil, 0
	es.mu.Unlock()
	es.signal()
}

func (es *eventStream) signal() {
	select {
	case es.wake <- struct{}{}:
	default:
	}
}

// attach claims the stream for one writer: a stream is served by at most
// one HTTP response at a time.
func (es *eventStream) attach() bool {
	es.mu.Lock()
	defer es.mu.Unlock()
	if es.attached || es.closed {
		return false
	}
	es.attached = true
	return true
}

func (es *eventStream) isClosed() bool {
	es.mu.Lock()
	defer es.mu.Unlock()
	return es.closed
}

func (es *eventStream) detach() {
	es.mu.Lock()
	if es.attached {
		es.attached = false
		es.left, es.leftSeq = es.now(), leaveSeq.Add(1)
	}
	es.mu.Unlock()
}

func (es *eventStream) markSent(n int) {
	es.mu.Lock()
	es.sent = max(es.sent, n)
	es.mu.Unlock()
}

// sentUpTo is where a new reader of the stream starts: after what earlier
// readers were written (a reader that missed some says so with
// Last-Event-ID).
func (es *eventStream) sentUpTo() int {
	es.mu.Lock()
	defer es.mu.Unlock()
	return es.sent
}

// since returns the events after number n, and whether the stream is
// finished once they are written.
func (es *eventStream) since(n int) (evs []queuedEvent, done, closed bool) {
	es.mu.Lock()
	defer es.mu.Unlock()
	for _, e := range es.events {
		if e.n > n {
			evs = append(evs, e)
		}
	}
	last := es.next - 1
	if len(evs) > 0 {
		last = evs[len(evs)-1].n
	}
	return evs, es.final && last == es.next-1, es.closed
}

// sole reports, as since(0) does but without copying the events, whether
// the stream holds exactly one event that finishes it (final, with that
// event), whether it holds any, and whether it is closed: what a POST
// looks at, once per call, to answer with plain JSON.
func (es *eventStream) sole() (ev queuedEvent, final, some, closed bool) {
	es.mu.Lock()
	defer es.mu.Unlock()
	if len(es.events) == 1 {
		ev = es.events[0]
		final = es.final && ev.n == es.next-1
	}
	return ev, final, len(es.events) > 0, es.closed
}

// eventID names event n of the stream, so that Last-Event-ID tells both
// the stream and the position to resume from.
func (es *eventStream) eventID(n int) string { return es.id + "_" + strconv.Itoa(n) }

// issued is the number of the last event pushed to the stream, 0 if
// none: a Last-Event-ID beyond it names an event the stream never sent.
func (es *eventStream) issued() int {
	es.mu.Lock()
	defer es.mu.Unlock()
	return es.next - 1
}

// parseEventID splits a Last-Event-ID into stream id and event number.
// The number must be spelled as eventID spells it: decimal digits, no
// sign, no leading zero (but for "0"), no space; another spelling
// ("s_05", "s_+5", "s_-0", "s_ 5") is no event id of this server, so
// that no two ids name the same event. Digits beyond the range of int
// give math.MaxInt: past any event a stream can issue, and refused as
// such, not taken for a malformed id.
func parseEventID(s string) (stream string, n int, ok bool) {
	i := strings.LastIndexByte(s, '_')
	if i <= 0 {
		return "", 0, false
	}
	d := s[i+1:]
	if d == "" || len(d) > 1 && d[0] == '0' {
		return "", 0, false
	}
	for j := 0; j < len(d); j++ {
		if d[j] < '0' || d[j] > '9' {
			return "", 0, false
		}
	}
	n, err := strconv.Atoi(d)
	if err != nil { // only a range error is left
		n = math.MaxInt
	}
	return s[:i], n, true
}

// errStreamGone answers a Last-Event-ID naming a stream not retained.
func errStreamGone(id string) *httpError {
	return httpErr(http.StatusGone, mcp.CodeInvalidRequest,
		"gone: stream "+strconv.Quote(id)+" of Last-Event-ID is not retained; it ended, never existed, or was dropped under the server's retention limits, and its events are lost")
}

// errFutureEvent answers a Last-Event-ID naming event n of a stream
// that has not sent it: resuming after it would skip the events up to
// it, which the client never read. Gone, as for a stream that never
// existed: the id names nothing this server sent.
func errFutureEvent(stream string, n int) *httpError {
	return httpErr(http.StatusGone, mcp.CodeInvalidRequest,
		"gone: Last-Event-ID names event "+strconv.Itoa(n)+" of stream "+strconv.Quote(stream)+", which the stream has not sent; resuming after it would skip events")
}

// sseWriter writes events to one HTTP response.
type sseWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
	// armed: a write (or the header) may have left a write deadline set
	// (deadlineWriter), which rest clears.
	armed bool
}

// startSSE sends the response header of an SSE stream.
func startSSE(w http.ResponseWriter, sessionID string) *sseWriter {
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no") // nginx would otherwise hold events back
	if sessionID != "" {
		hd.Set(HeaderSessionID, sessionID)
	}
	w.WriteHeader(http.StatusOK)
	sw := &sseWriter{w: w, rc: http.NewResponseController(w), armed: true}
	_ = sw.rc.Flush()
	return sw
}

// event writes one event. Messages are single-line JSON, but data is
// framed whatever it holds: each of its lines becomes a data line, and a
// line ends at LF, CR LF or a lone CR, as an SSE client splits them. Were
// a lone CR written as it is, a client would end the line there and read
// what follows as a field of its own ("id:", or an empty line ending the
// event): events read back from HandlerOptions.Events come from a store
// other processes write to.
func (sw *sseWriter) event(id string, data []byte) error {
	var b bytes.Buffer
	if id != "" {
		b.WriteString("id: " + id + "\n")
	}
	b.WriteString("event: message\n")
	for {
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			break
		}
		b.WriteString("data: ")
		b.Write(data[:i])
		b.WriteByte('\n')
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		data = data[i+1:]
	}
	b.WriteString("data: ")
	b.Write(data)
	b.WriteString("\n\n")
	return sw.write(b.Bytes())
}

// prime sends an event with an id and no data, and the retry hint, so a
// client can resume even if the connection drops before the first message
// (2025-11-25 and later; earlier clients may choke on an empty event).
func (sw *sseWriter) prime(id string, retry time.Duration) error {
	return sw.write([]byte("id: " + id + "\nretry: " + strconv.FormatInt(retry.Milliseconds(), 10) + "\ndata: \n\n"))
}

func (sw *sseWriter) comment(text string) error { return sw.write([]byte(": " + text + "\n\n")) }

func (sw *sseWriter) write(b []byte) error {
	sw.armed = true
	if _, err := sw.w.Write(b); err != nil {
		return err
	}
	return sw.rc.Flush()
}

// rest clears the write deadline the last write set, before the stream
// waits for its next event, over HTTP/2 (or later). WriteTimeout bounds
// each write, not the time between them: over HTTP/1.1 a deadline that
// passes with no write in progress does nothing (the next write sets its
// own, so nothing is cleared there), but over HTTP/2 the stream's write
// deadline is a timer that resets the stream when it fires, write or
// not, and a stream idle for WriteTimeout (keep-alives off, or further
// apart) was cut with its client reading.
func (sw *sseWriter) rest(r *http.Request) {
	if sw.armed && r.ProtoMajor >= 2 {
		sw.armed = false
		_ = sw.rc.SetWriteDeadline(time.Time{})
	}
}

// serveStream writes es to w from event number after+1 until the stream is
// finished, the session ends, the handler shuts down or the client goes.
// It reports whether the stream was written to its end.
func (h *Handler) serveStream(r *http.Request, sw *sseWriter, es *eventStream, after int) bool {
	defer es.detach()
	var tick <-chan time.Time
	if h.opts.KeepAlive > 0 {
		t := time.NewTicker(h.opts.KeepAlive)
		defer t.Stop()
		tick = t.C
	}
	for {
		evs, done, closed := es.since(after)
		for _, e := range evs {
			id := ""
			if es.id != "" {
				id = es.eventID(e.n)
			}
			if sw.event(id, e.data) != nil {
				return false
			}
			after = e.n
			es.markSent(e.n)
		}
		if done {
			return true
		}
		if closed {
			return false
		}
		if h.opts.WriteTimeout > 0 {
			sw.rest(r)
		}
		select {
		case <-es.wake:
		case <-tick:
			if sw.comment("keep-alive") != nil {
				return false
			}
		case <-r.Context().Done():
			return false
		case <-h.done:
			return false
		}
	}
}
