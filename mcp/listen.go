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
	ss     *ServerSession
	id     transport.ID // the request's id, which is the subscription's id
	filter SubscriptionFilter
	notify coalescer // notifications being sent, per method and URI
}

// wants reports whether the listener asked for notifications of method
// (about uri, for resource updates).
func (l *listener) wants(method, uri string) bool {
	switch method {
	case "notifications/tools/list_changed":
		return l.filter.ToolsListChanged
	case "notifications/prompts/list_changed":
		return l.filter.PromptsListChanged
	case "notifications/resources/list_changed":
		return l.filter.ResourcesListChanged
	case "notifications/resources/updated":
		return slices.Contains(l.filter.ResourceSubscriptions, uri)
	}
	return false
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
	l := &listener{ss: ss, id: r.ID, filter: p.Notifications}
	// The acknowledgement is the stream's first message: it goes out
	// before the listener can receive anything.
	if err := ss.connection().Notify(ctx, "notifications/subscriptions/acknowledged",
		&SubscriptionsAcknowledgedParams{Notifications: l.filter, Meta: l.meta()}); err != nil {
		return nil, err
	}
	ss.srv.mu.Lock()
	ss.srv.listeners[l] = struct{}{}
	ss.srv.mu.Unlock()
	defer func() {
		ss.srv.mu.Lock()
		delete(ss.srv.listeners, l)
		ss.srv.mu.Unlock()
	}()
	done := ss.waitOnClient() // to cancel it
	<-ctx.Done()
	done()
	res := &SubscriptionsListenResult{}
	res.Meta = l.meta()
	ss.finish(ci, &res.ResultEnvelope)
	return res, nil
}

// notifyListeners sends a list change or resource update to the open
// subscriptions that asked for it.
func (s *Server) notifyListeners(method, uri string) {
	s.mu.RLock()
	var to []*listener
	for l := range s.listeners {
		if l.wants(method, uri) {
			to = append(to, l)
		}
	}
	s.mu.RUnlock()
	for _, l := range to {
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
