package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// In 2026-07-28 there is no session for a server to send list changes and
// resource updates to: it sends them on a subscriptions/listen request
// that the client holds open, and only those the request's filter names.
// The client holds one open while it has something to listen for: an
// OnToolsChanged, OnResourcesChanged or OnPromptsChanged the server's
// capabilities say it can serve, or a resource subscribed with Subscribe.
//
// A listen that ends (the server's final result, a dropped connection, a
// token that expired) is opened again with backoff. Whatever happened in
// between was not heard, so once the new listen is acknowledged each list
// callback of its filter is called once, and OnResourceUpdated once for
// each subscribed resource: the caller lists or reads again, as it would
// on a notification. A change of filter (Subscribe, Unsubscribe) opens the
// new listen before it closes the old one, so that nothing is missed in
// between; a notification may then come twice.

// listenState is a Client's subscriptions/listen bookkeeping.
type listenState struct {
	mu      sync.Mutex
	subs    map[string]struct{} // resources subscribed with Subscribe
	gen     uint64              // counts changes of subs
	running bool                // the loop runs
	first   chan struct{}       // closed once the loop's first listen was acknowledged or failed
	wake    chan struct{}       // tells the loop that subs changed; room for one

	// acks maps the id of each listen sent, as its _meta names it, to
	// the channel closed when the server acknowledges it; early holds
	// acknowledgements of ids not registered yet (over stdio the id is
	// known only once the request is sent, and its acknowledgement may
	// be read first), at most maxEarlyAcks of them.
	acks, early map[string]*listenAck
	// ackedGen is the generation of subs the last acknowledged listen
	// (or the loop, when nothing is to be listened for) served; ackedSubs
	// the resources that acknowledgement said the server honours.
	ackedGen  uint64
	ackedSubs []string
	ackedCh   chan struct{} // closed and replaced when ackedGen or rejectedGen moves
	stopErr   error         // why the loop gave up for good
	// rejectedGen is the generation of subs whose listen the server
	// refused as invalid (too many resources, say), and rejectErr why:
	// the Subscribe that made it fails and takes its resource back.
	rejectedGen uint64
	rejectErr   error
	// firstLate: Connect stopped waiting for the first acknowledgement
	// (firstListen); what changed before it came was not heard.
	firstLate bool
}

// wakeWaitersLocked wakes the Subscribes waiting for an acknowledgement,
// to look again. l.mu is held.
func (l *listenState) wakeWaitersLocked() {
	if l.ackedCh != nil {
		close(l.ackedCh)
		l.ackedCh = nil
	}
}

// pokeLocked tells the loop, if it runs, that subs changed. l.mu is held.
func (l *listenState) pokeLocked() {
	select {
	case l.wake <- struct{}{}: // a nil wake (no loop yet) is never ready
	default:
	}
}

type listenAck struct {
	ch     chan struct{}
	filter mcp.SubscriptionFilter
}

// Listen backoff: after a listen fails or ends, the next starts after
// listenBackoffMin, doubling up to listenBackoffMax; a listen that lasted
// listenStable resets it.
const (
	listenBackoffMin = 250 * time.Millisecond
	listenBackoffMax = 30 * time.Second
	listenStable     = time.Minute
	// listenLife stands for "no timeout" on the listen request: a context
	// without a deadline would get the client's call timeout.
	listenLife = 100 * 365 * 24 * time.Hour
	// maxEarlyAcks bounds the acknowledgements kept for ids not yet
	// registered: a server naming ids the client never sent evicts only
	// its own.
	maxEarlyAcks = 8
)

// firstListenWait bounds how long Connect waits for the first listen's
// acknowledgement (a variable for tests).
var firstListenWait = 5 * time.Second

// startListening starts the listen loop if the client is stateless and
// has something to listen for; called after the handshake and on
// Subscribe.
func (c *Client) startListening() {
	if !c.stateless {
		return
	}
	l := &c.listen
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.running || l.stopErr != nil {
		return
	}
	if f := c.listenFilterLocked(); isEmptyFilter(f) {
		return
	}
	l.running = true
	if l.wake == nil {
		l.wake = make(chan struct{}, 1)
	}
	if l.first == nil {
		l.first = make(chan struct{})
	}
	go c.listenLoop(l.first)
}

// firstListen waits, within ctx and at most firstListenWait, for the
// first listen to be acknowledged or to fail, if one was started: a
// server that holds the listen without acknowledging it does not hold
// Connect for its whole timeout.
func (c *Client) firstListen(ctx context.Context) {
	c.listen.mu.Lock()
	first := c.listen.first
	c.listen.mu.Unlock()
	if first == nil {
		return
	}
	t := time.NewTimer(firstListenWait)
	defer t.Stop()
	// Whatever ends the wait before the acknowledgement (the wait's bound,
	// or ctx: a caller's deadline, a Process's HandshakeTimeout), Connect
	// returns while a change could go unheard: the callbacks run once the
	// acknowledgement comes. Before, only the bound said so, and a tool
	// added after a Connect whose context ended first was never heard of.
	late := func() bool {
		c.listen.mu.Lock()
		defer c.listen.mu.Unlock()
		select {
		case <-first:
			return false
		default:
			c.listen.firstLate = true
			return true
		}
	}
	select {
	case <-first:
	case <-ctx.Done():
		late()
	case <-t.C:
		if late() {
			c.log.Warn("mcp client: the server has not acknowledged subscriptions/listen; its callbacks run once it does, in case something changed meanwhile", "after", firstListenWait)
		}
	}
}

// listenFilterLocked is what the client listens for now.
func (c *Client) listenFilterLocked() mcp.SubscriptionFilter {
	caps := c.capabilities
	f := mcp.SubscriptionFilter{
		ToolsListChanged:     c.opts.OnToolsChanged != nil && caps.Tools != nil && caps.Tools.ListChanged,
		PromptsListChanged:   c.opts.OnPromptsChanged != nil && caps.Prompts != nil && caps.Prompts.ListChanged,
		ResourcesListChanged: c.opts.OnResourcesChanged != nil && caps.Resources != nil && caps.Resources.ListChanged,
	}
	for uri := range c.listen.subs {
		f.ResourceSubscriptions = append(f.ResourceSubscriptions, uri)
	}
	slices.Sort(f.ResourceSubscriptions)
	return f
}

func isEmptyFilter(f mcp.SubscriptionFilter) bool {
	return !f.ToolsListChanged && !f.PromptsListChanged && !f.ResourcesListChanged && len(f.ResourceSubscriptions) == 0
}

// activeListen is a subscriptions/listen request in flight.
type activeListen struct {
	fu     *Future[json.RawMessage]
	ack    *listenAck
	id     string
	gen    uint64
	cancel context.CancelFunc
	start  time.Time
}

func (a *activeListen) stop() {
	if a != nil {
		a.cancel()
		<-a.fu.Done()
	}
}

// listenLoop keeps a listen open for the current filter until the
// connection closes or the server refuses listening for good.
func (c *Client) listenLoop(first chan struct{}) {
	l := &c.listen
	var cur *activeListen
	firstDone := func() {
		if first != nil {
			close(first)
			first = nil
		}
	}
	defer func() {
		firstDone()
		cur.stop()
		l.mu.Lock()
		l.running = false
		l.mu.Unlock()
	}()
	backoff := time.Duration(0)
	missed := false // a listen ended: what came meanwhile was not heard
	for {
		l.mu.Lock()
		f, gen := c.listenFilterLocked(), l.gen
		l.mu.Unlock()
		if isEmptyFilter(f) {
			cur.stop()
			cur = nil
			c.acknowledged(gen, nil)
			firstDone()
			select {
			case <-l.wake:
				continue
			case <-c.conn.Done():
				return
			}
		}
		next, err := c.openListen(f, gen)
		if err == nil {
			select {
			case <-next.ack.ch:
			case <-next.fu.Done():
				_, err = next.fu.Wait()
				if err == nil {
					err = errors.New("subscriptions/listen: the server ended the request before acknowledging it")
				}
			case <-c.conn.Done():
				next.stop()
				return
			}
		}
		firstDone()
		if err != nil {
			if c.listenRefused(err) {
				return
			}
			c.rejectSubs(gen, f, err)
			c.log.Debug("mcp client: subscriptions/listen failed; retrying", "err", err, "in", backoff)
			missed = missed || cur == nil
			if !c.listenWait(&backoff) {
				return
			}
			continue
		}
		// Make before break: the old listen ends once the new one is
		// acknowledged.
		cur.stop()
		cur = next
		c.acknowledged(gen, cur.ack.filter.ResourceSubscriptions)
		// firstDone ran before: a firstListen that gave up has said so.
		l.mu.Lock()
		missed, l.firstLate = missed || l.firstLate, false
		l.mu.Unlock()
		if missed {
			missed = false
			c.callMissed(cur.ack.filter)
		}
		select {
		case <-l.wake:
			continue
		case <-cur.fu.Done():
			_, err := cur.fu.Wait()
			if c.conn.Err() != nil {
				return
			}
			if err != nil && c.listenRefused(err) {
				return
			}
			c.log.Debug("mcp client: subscriptions/listen ended; listening again", "err", err)
			if time.Since(cur.start) >= listenStable {
				backoff = 0
			}
			cur, missed = nil, true
			if !c.listenWait(&backoff) {
				return
			}
		case <-c.conn.Done():
			return
		}
	}
}

// openListen sends a subscriptions/listen for filter f.
func (c *Client) openListen(f mcp.SubscriptionFilter, gen uint64) (*activeListen, error) {
	params, err := c.withMeta(&mcp.SubscriptionsListenParams{Notifications: f}, "")
	if err != nil {
		return nil, fmt.Errorf("subscriptions/listen: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), listenLife)
	a := &activeListen{ack: &listenAck{ch: make(chan struct{})}, gen: gen, cancel: cancel, start: time.Now()}
	// The id is known before the request is sent, so that its
	// acknowledgement, which may come first, finds its channel.
	call := c.conn.Go(ctx, "subscriptions/listen", params)
	a.id = call.ID().String()
	a.fu = &Future[json.RawMessage]{call: call, decode: func(b json.RawMessage) (json.RawMessage, error) { return b, nil }}
	l := &c.listen
	l.mu.Lock()
	if l.acks == nil {
		l.acks = map[string]*listenAck{}
	}
	if early, ok := l.early[a.id]; ok {
		a.ack = early // acknowledged before Go returned
		delete(l.early, a.id)
	}
	l.acks[a.id] = a.ack
	l.mu.Unlock()
	go func() {
		<-call.Done()
		l.mu.Lock()
		if l.acks[a.id] == a.ack {
			delete(l.acks, a.id)
		}
		l.mu.Unlock()
	}()
	return a, nil
}

// onAcknowledged handles notifications/subscriptions/acknowledged: the
// listen its _meta names has started.
func (c *Client) onAcknowledged(params json.RawMessage) {
	var p struct {
		Notifications mcp.SubscriptionFilter     `json:"notifications"`
		Meta          map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	id := string(p.Meta[mcp.MetaSubscriptionID])
	if id == "" {
		return
	}
	l := &c.listen
	l.mu.Lock()
	defer l.mu.Unlock()
	a, ok := l.acks[id]
	switch {
	case !ok:
		// Not one of ours, or not registered yet: kept for openListen.
		if _, dup := l.early[id]; dup {
			return
		}
		if l.early == nil {
			l.early = map[string]*listenAck{}
		}
		for k := range l.early {
			if len(l.early) < maxEarlyAcks {
				break
			}
			delete(l.early, k)
		}
		a = &listenAck{ch: make(chan struct{})}
		l.early[id] = a
	case isClosed(a.ch):
		return // a server that acknowledges twice
	}
	a.filter = p.Notifications
	close(a.ch)
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// acknowledged records that the subs of generation gen are listened for
// (subs: the resources the server honours).
func (c *Client) acknowledged(gen uint64, subs []string) {
	l := &c.listen
	l.mu.Lock()
	defer l.mu.Unlock()
	if gen < l.ackedGen {
		return
	}
	l.ackedGen, l.ackedSubs = gen, subs
	l.wakeWaitersLocked()
}

// listenRefused reports whether err means that the server will not serve
// listening at all (it does not know the method, or the request), or that
// the connection closed, and if the former stops trying and fails whoever
// waits. Invalid params (too many resources, a bad URI) are the filter's
// fault: rejectSubs.
func (c *Client) listenRefused(err error) bool {
	var rpc *mcp.Error
	if !errors.As(err, &rpc) || (rpc.Code != mcp.CodeMethodNotFound && rpc.Code != mcp.CodeInvalidRequest) {
		return c.conn.Err() != nil
	}
	c.log.Warn("mcp client: the server refuses subscriptions/listen; no list changes or resource updates will be heard", "err", err)
	l := &c.listen
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopErr = fmt.Errorf("subscriptions/listen: %w", err)
	l.wakeWaitersLocked()
	return true
}

// rejectSubs records, when err is the server refusing the params of a
// listen whose filter names resources, that generation gen of subs was
// refused: the Subscribe waiting for it fails and takes its resource back.
func (c *Client) rejectSubs(gen uint64, f mcp.SubscriptionFilter, err error) {
	var rpc *mcp.Error
	if len(f.ResourceSubscriptions) == 0 || !errors.As(err, &rpc) || rpc.Code != mcp.CodeInvalidParams {
		return
	}
	l := &c.listen
	l.mu.Lock()
	defer l.mu.Unlock()
	if gen > l.rejectedGen {
		l.rejectedGen, l.rejectErr = gen, err
	}
	l.wakeWaitersLocked()
}

// listenWait waits out the backoff, doubling it for the next time; a
// change of filter cuts it short. False: the connection closed.
func (c *Client) listenWait(backoff *time.Duration) bool {
	d := *backoff
	*backoff = min(max(2*d, listenBackoffMin), listenBackoffMax)
	if d == 0 {
		d = listenBackoffMin
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.listen.wake:
		return true
	case <-c.conn.Done():
		return false
	}
}

// callMissed calls, after a listen was re-established, the callbacks of
// what may have changed while none was open.
func (c *Client) callMissed(f mcp.SubscriptionFilter) {
	c.cbMu.Lock()
	defer c.cbMu.Unlock()
	if f.ToolsListChanged && c.opts.OnToolsChanged != nil {
		c.opts.OnToolsChanged()
	}
	if f.ResourcesListChanged && c.opts.OnResourcesChanged != nil {
		c.opts.OnResourcesChanged()
	}
	if f.PromptsListChanged && c.opts.OnPromptsChanged != nil {
		c.opts.OnPromptsChanged()
	}
	if c.opts.OnResourceUpdated != nil {
		for _, uri := range f.ResourceSubscriptions {
			c.opts.OnResourceUpdated(uri)
		}
	}
}

// changeSubs adds (or removes) uri to the resources listened for, and
// waits until a listen for the new set is acknowledged. It reports
// whether the server honours uri (add only).
func (c *Client) changeSubs(ctx context.Context, uri string, add bool) error {
	l := &c.listen
	l.mu.Lock()
	if l.stopErr != nil {
		err := l.stopErr
		l.mu.Unlock()
		return err
	}
	if l.subs == nil {
		l.subs = map[string]struct{}{}
	}
	if _, has := l.subs[uri]; has == add {
		l.mu.Unlock()
		if !add {
			return nil
		}
	} else {
		if add {
			l.subs[uri] = struct{}{}
		} else {
			delete(l.subs, uri)
		}
		l.gen++
		l.pokeLocked()
		l.mu.Unlock()
	}
	c.startListening()
	l.mu.Lock()
	gen := l.gen
	for l.ackedGen < gen && l.rejectedGen < gen && l.stopErr == nil {
		if l.ackedCh == nil {
			l.ackedCh = make(chan struct{})
		}
		ch := l.ackedCh
		l.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-c.conn.Done():
			return c.conn.Err()
		}
		l.mu.Lock()
	}
	defer l.mu.Unlock()
	switch {
	case l.stopErr != nil:
		return l.stopErr
	case l.ackedGen < gen && l.rejectedGen >= gen:
		err := l.rejectErr
		if _, still := l.subs[uri]; add && still {
			// Taken back, so that the loop listens for the rest again.
			delete(l.subs, uri)
			l.gen++
			l.pokeLocked()
		}
		return fmt.Errorf("resources/subscribe: %w", err)
	}
	if add && !slices.Contains(l.ackedSubs, uri) {
		if _, still := l.subs[uri]; still {
			return fmt.Errorf("resources/subscribe: the server's subscriptions/listen does not honour %q", truncate([]byte(uri), 256))
		}
	}
	return nil
}
