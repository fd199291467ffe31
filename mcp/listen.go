package mcp

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/winbridge/winbridge/transport"
)

// A listener is an open subscriptions/listen request (2026-07-28): the
// stateless era's way to receive list changes and resource updates, on the
// stream of one long-lived request instead of a session.
type listener struct {
	ss        *ServerSession
	id        transport.ID // the request's id, which is the subscription's id
	filter    SubscriptionFilter
	principal string    // who opened it, for MaxListenersPerPrincipal
	uris      []string  // the filter's resource URIs, sorted, each once: its keys in Server.byURI
	notify    coalescer // notifications being sent, per method and URI
}

// wantsList reports whether the listener asked for the list change
// method; resource updates are matched by Server.byURI.
func (l *listener) wantsList(method string) bool {
	switch method {
	case "notifications/tools/list_changed":
		return l.filter.ToolsListChanged
	case "notifications/prompts/list_changed":
		return l.filter.PromptsListChanged
	case "notifications/resources/list_changed":
		return l.filter.ResourcesListChanged
	}
	return false
}

// Listeners are bounded (ServerOptions.MaxListeners,
// MaxListenersPerPrincipal) and so is each one's filter
// (MaxSubscriptions), but not their product: with a filter read by
// slices.Contains, each resource update compared its URI with every name
// of every filter, up to 256 x 1024 of them by default. Server.byURI
// indexes them instead, so that an update costs one map lookup and the
// listeners that asked for it; a listener pays for its URIs once, as it
// opens and as it closes.

// errListenerLimit answers a subscriptions/listen beyond MaxListeners or
// MaxListenersPerPrincipal.
func errListenerLimit(n int, bound string) *Error {
	return &Error{Code: CodeServerBusy, Message: "server busy: " + strconv.Itoa(n) +
		" subscriptions/listen requests are open, the most it serves (ServerOptions." + bound + "); close one, or retry later"}
}

// reserveListener counts l against MaxListeners and
// MaxListenersPerPrincipal, or says which it is beyond. It is counted
// before its acknowledgement goes out, and receives nothing until
// addListener.
func (s *Server) reserveListener(l *listener) *Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := s.listenCount; n >= s.opts.MaxListeners {
		return errListenerLimit(n, "MaxListeners")
	}
	if p := l.principal; p != "" && s.opts.MaxListenersPerPrincipal > 0 {
		if n := s.listenBy[p]; n >= s.opts.MaxListenersPerPrincipal {
			return errListenerLimit(n, "MaxListenersPerPrincipal")
		}
		s.listenBy[p]++
	}
	s.listenCount++
	return nil
}

// addListener lets l receive what its filter asks for.
func (s *Server) addListener(l *listener) {
	uris := slices.Clone(l.filter.ResourceSubscriptions)
	slices.Sort(uris)
	l.uris = slices.Compact(uris) // a URI named twice is notified once, as before
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listeners[l] = struct{}{}
	for _, u := range l.uris {
		s.byURI[u] = append(s.byURI[u], l)
	}
}

// removeListener undoes addListener (if it ran) and reserveListener.
func (s *Server) removeListener(l *listener) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.listeners, l)
	for _, u := range l.uris {
		ls := s.byURI[u]
		if i := slices.Index(ls, l); i >= 0 {
			// Swapped with the last, and the last cleared: the order of
			// the listeners of a URI is of no account.
			ls[i] = ls[len(ls)-1]
			ls[len(ls)-1] = nil
			ls = ls[:len(ls)-1]
		}
		if len(ls) == 0 {
			delete(s.byURI, u)
		} else {
			s.byURI[u] = ls
		}
	}
	s.listenCount--
	if p := l.principal; p != "" && s.opts.MaxListenersPerPrincipal > 0 {
		if s.listenBy[p]--; s.listenBy[p] <= 0 {
			delete(s.listenBy, p)
		}
	}
}

// listenersFor returns the open listeners that asked for notifications
// of method (about uri, for resource updates), appended to to.
func (s *Server) listenersFor(to []*listener, method, uri string) []*listener {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if method == "notifications/resources/updated" {
		return append(to, s.byURI[uri]...)
	}
	for l := range s.listeners {
		if l.wantsList(method) {
			to = append(to, l)
		}
	}
	return to
}

// meta is the _meta that tags every message of the subscription.
func (l *listener) meta() Meta { return Meta{MetaSubscriptionID: l.id.Raw()} }

// subscriptionsListen acknowledges the filter, then holds the request open
// (the stream stays open) until the client cancels it or goes away;
// Server.changed and ResourceUpdated send to it meanwhile.
func (ss *ServerSession) subscriptionsListen(ctx context.Context, r *transport.Request) (any, error) {
	var p SubscriptionsListenParams
	pm, err := decodeRequest(r, &p, &p.Meta)
	if err != nil {
		return nil, err
	}
	ci, err := ss.info(r.Method, &pm, p.Meta)
	if err != nil {
		return nil, err
	}
	if !ci.stateless {
		return nil, &Error{Code: CodeMethodNotFound, Message: "Method not found: subscriptions/listen exists from " + Version20260728 + "; use resources/subscribe and list_changed notifications"}
	}
	if n := len(p.Notifications.ResourceSubscriptions); n > ss.srv.opts.MaxSubscriptions {
		return nil, invalidParams("subscriptions/listen names "+strconv.Itoa(n)+" resources, more than "+
			strconv.Itoa(ss.srv.opts.MaxSubscriptions)+" (ServerOptions.MaxSubscriptions)", nil)
	}
	l := &listener{ss: ss, id: r.ID, filter: p.Notifications, principal: ss.boundPrincipal()}
	if err := ss.srv.reserveListener(l); err != nil {
		return nil, err
	}
	defer ss.srv.removeListener(l)
	// Registered before the acknowledgement, so that a change made once
	// the client has it is sent (registered after, a change in between
	// was lost, and the client, told it listens, had no way to know);
	// what is posted meanwhile waits, as the acknowledgement must be the
	// stream's first message.
	l.notify.hold()
	ss.srv.addListener(l)
	if err := ss.connection().Notify(ctx, "notifications/subscriptions/acknowledged",
		&SubscriptionsAcknowledgedParams{Notifications: l.filter, Meta: l.meta()}); err != nil {
		return nil, err
	}
	l.notify.release()
	done := ss.waitOnClient() // to cancel it
	// Over a stream, a client whose input ended can no longer cancel the
	// listen: it ends, or the stream would wait its drain timeout for it
	// before closing.
	var ended <-chan struct{}
	if !ss.direct {
		ended = ss.connection().InputEnded()
	}
	select {
	case <-ctx.Done():
	case <-ended:
	}
	done()
	res := &SubscriptionsListenResult{}
	res.Meta = l.meta()
	ss.finish(ci, &res.ResultEnvelope)
	return res, nil
}

// notifyListeners sends a list change or resource update to the open
// subscriptions that asked for it.
func (s *Server) notifyListeners(method, uri string) {
	for _, l := range s.listenersFor(nil, method, uri) {
		l.notify.post(method+" "+uri, func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			var params any = &NotificationParams{Meta: l.meta()}
			if uri != "" {
				params = &ResourceUpdatedParams{URI: uri, Meta: l.meta()}
			}
			_ = l.ss.connection().Notify(ctx, method, params)
		})
	}
}
