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
