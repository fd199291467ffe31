package mcp

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"time"
)

// A server that runs as several replicas behind a load balancer shares two
// things through these interfaces: the keys that seal requestState (a
// multi round-trip request may be retried on any replica), and the list
// changes and resource updates that must reach every replica's
// subscriptions/listen streams and legacy sessions. In-memory behaviour,
// one process, is what a Server does when neither is set.

// Keyring holds the keys that seal requestState, for replicas that share
// them and rotate them (ServerOptions.StateKeys).
type Keyring interface {
	// StateKeys returns the key to seal with first, then the older keys
	// whose seals are still accepted. It is called on every seal and
	// open, so it must be cheap (a cached copy) and safe for concurrent
	// use; an empty result fails the request rather than sealing with
	// no key.
	StateKeys() [][]byte
}

// Change is a list change or a resource update, as it crosses replicas.
type Change struct {
	// Method is notifications/tools/list_changed,
	// notifications/prompts/list_changed,
	// notifications/resources/list_changed or
	// notifications/resources/updated.
	Method string `json:"method"`
	// URI is the updated resource (notifications/resources/updated only).
	URI string `json:"uri,omitempty"`
}

// Bus carries Changes between the replicas of one server
// (ServerOptions.Bus). With a bus, a Server delivers its changes to its
// own sessions only through it: what Publish sends reaches every
// replica's subscriber, this one's included, once each (a store that
// sends a publish again after a lost reply may deliver it twice; a
// change heard twice only repeats a notification). The
// package mcphttp/storetest checks an implementation (TestBus).
type Bus interface {
	// Publish sends c to every subscriber.
	Publish(ctx context.Context, c Change) error
	// Subscribe calls deliver for each Change published, until stop is
	// called. deliver must not block for long; the Server hands the
	// change to its sessions without waiting for them.
	Subscribe(deliver func(Change)) (stop func())
}

// publishTimeout bounds a Publish, which the Server makes without a
// caller's context for list changes.
const publishTimeout = 5 * time.Second

// announce sends a change through the bus, or straight to the sessions
// without one.
func (s *Server) announce(ctx context.Context, c Change) {
	if s.opts.Bus == nil {
		s.deliverChange(ctx, c)
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), publishTimeout)
	defer cancel()
	if err := s.opts.Bus.Publish(ctx, c); err != nil {
		// The replicas' clients miss this change; this replica's too,
		// since its sessions hear only what the bus delivers, which
		// keeps every replica's view in the same order.
		s.log.Warn("mcp: publishing a change to the other replicas failed", "method", c.Method, "uri", c.URI, "err", err)
	}
}

// deliverChange hands a change to this replica's sessions and listeners.
func (s *Server) deliverChange(ctx context.Context, c Change) {
	switch c.Method {
	case "notifications/resources/updated":
		s.resourceUpdated(ctx, c.URI)
	case "notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed":
		s.listChanged(c.Method)
	default:
		s.log.Debug("mcp: ignored a change of unknown method from the bus", "method", c.Method)
	}
}

// sealKeys are the keys of requestState: the keyring's, or the one key.
func (s *Server) sealKeys() [][]byte {
	if s.opts.StateKeys != nil {
		return s.opts.StateKeys.StateKeys()
	}
	return [][]byte{s.stateKey}
}

func mac(key, b []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(b)
	return m.Sum(nil)
}
