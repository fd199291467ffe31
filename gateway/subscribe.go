package gateway

import (
	"context"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
)

// Resource subscriptions: a downstream session's resources/subscribe of a
// resource an upstream lists is passed on to that upstream (once per URI,
// in the background: the hook runs on the session's read loop), and the
// upstream's notifications/resources/updated for a URI it was subscribed
// to reaches the downstream sessions subscribed to it (mcp.Server keeps
// who subscribed to what). The facade stays subscribed upstream until the
// upstream restarts, when it subscribes again; an unsubscribe only stops
// the session's notifications.
//
// A URI can become disputed after a client subscribed to it: another
// upstream lists it too, or lists it instead, or offers a template that
// matches it (resources.go). The facade then reads it from neither, and
// must not go on passing one of them's updates for it either: they would
// tell the client of changes to a resource it can no longer read there,
// at the time that upstream chooses. On a dispute the relay drops that
// upstream's updates of the URI at once (readIndex.disputed), and the
// subscriber unsubscribes upstream and forgets the URI; a client that
// wants updates after the dispute ends subscribes again.

// maxSubscriptions bounds the URIs the facade subscribes to at one
// upstream: each costs the upstream a watch, and a client could ask for
// every resource listed.
const maxSubscriptions = 1000

// subscribe is the downstream server's mcp.ServerOptions.Subscribe.
func (v *view) subscribe(_ context.Context, _ *mcp.ServerSession, uri string, on bool) error {
	if !on {
		return nil
	}
	v.buildMu.Lock()
	u := v.resOwner[uri]
	v.buildMu.Unlock()
	if u == nil {
		return nil // not an upstream's listed resource: no updates come, as before
	}
	if r := v.set.Load().pol.Servers[u.name]; r != nil && r.Subscriptions == "deny" {
		return refuseForward("the gateway's policy does not pass on subscriptions to the resources of server %q", u.name)
	}
	return u.subscribe(uri)
}

// subscribe records that uri is to be subscribed to at u and wakes the
// background subscriber.
func (u *upstream) subscribe(uri string) error {
	u.mu.Lock()
	if _, ok := u.subs[uri]; !ok {
		if len(u.subs) >= maxSubscriptions {
			u.mu.Unlock()
			return refuseForward("the gateway is subscribed to %d resources of server %q already", maxSubscriptions, u.name)
		}
		if u.subs == nil {
			u.subs = map[string]*client.Client{}
		}
		u.subs[uri] = nil // not subscribed on any connection yet
	}
	u.mu.Unlock()
	u.wakeSubscriber()
	return nil
}

func (u *upstream) wakeSubscriber() {
	select {
	case u.subWake <- struct{}{}:
	default: // a round is pending already
	}
}

// subscribed reports whether the facade asked u for updates of uri: only
// those are passed on (an upstream must not notify about another's URIs).
func (u *upstream) subscribed(uri string) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	_, ok := u.subs[uri]
	return ok
}

// subscriber subscribes, at each wake, to the URIs not yet subscribed on
// the current connection, until ctx ends.
func (u *upstream) subscriber(ctx context.Context) {
	for {
		select {
		case <-u.subWake:
		case <-ctx.Done():
			return
		}
		u.dropDisputed(ctx)
		for u.State() == StateReady { // not asleep: a subscription does not wake a server
			cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			c, err := u.client(cctx)
			if err != nil {
				cancel()
				break // subscribed again when it is back (relist wakes us)
			}
			uri := ""
			u.mu.Lock()
			for k, on := range u.subs {
				if on != c {
					uri = k
					break
				}
			}
			u.mu.Unlock()
			if uri == "" {
				cancel()
				break
			}
			err = c.Subscribe(cctx, uri)
			cancel()
			if err != nil {
				u.g.log.Warn("gateway: subscribing upstream", "upstream", u.name, "uri", uri, "err", u.redact(err))
			}
			u.mu.Lock()
			if _, ok := u.subs[uri]; ok {
				u.subs[uri] = c // tried on this connection, failed or not
			}
			u.mu.Unlock()
		}
	}
}

// dropDisputed ends the subscriptions at u to URIs that some view no
// longer reads from u (readIndex.disputed): they are forgotten, so that
// they are not subscribed again on the next connection, and unsubscribed
// on the connection they were subscribed on if it is the current one
// (the upstream forgot those of an earlier one).
func (u *upstream) dropDisputed(ctx context.Context) {
	views := u.g.allViews()
	var drop map[string]*client.Client
	u.mu.Lock()
	for uri, on := range u.subs {
		for _, v := range views {
			if v.reads.Load().disputed(uri, u) {
				if drop == nil {
					drop = map[string]*client.Client{}
				}
				drop[uri] = on
				delete(u.subs, uri)
				break
			}
		}
	}
	u.mu.Unlock()
	if len(drop) == 0 || u.State() != StateReady {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c, err := u.client(cctx)
	if err != nil {
		return
	}
	for uri, on := range drop {
		if on != c {
			continue // not subscribed on this connection
		}
		if err := c.Unsubscribe(cctx, uri); err != nil {
			u.g.log.Warn("gateway: unsubscribing upstream from a disputed URI", "upstream", u.name, "uri", uri, "err", u.redact(err))
		}
	}
}
