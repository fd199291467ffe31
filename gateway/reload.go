package gateway

import (
	"reflect"
	"sync"
)

// Reload applies a new configuration and policy while serving. Servers
// whose configuration did not change keep running (an in-process server
// is the same when Options.Servers names the same *mcp.Server); removed
// and changed ones are stopped, new and changed ones started. The surface
// is rebuilt and the sessions get list_changed for whatever changed.
// Options.Process, MaxConcurrentStarts, Audit, Info and Logger keep their
// values from New (the servers it starts share New's bound on starts at
// once). On error nothing changes.
func (g *Gateway) Reload(opts *Options) error {
	mapper := opts.PathMapper
	if mapper == nil {
		mapper = g.opts.PathMapper
	}
	views := g.allViews()
	sets := make([]*settings, len(views))
	for i, v := range views {
		profile := v.profile
		if v == g.main {
			profile = opts.Profile
		}
		st, err := newSettings(opts.Policy, profile, mapper)
		if err != nil {
			return err
		}
		sets[i] = st
	}
	fresh, err := g.newUpstreams(opts)
	if err != nil {
		return err
	}
	g.upsMu.Lock()
	merged := make(map[string]*upstream, len(fresh))
	var start, stop []*upstream
	for name, nu := range fresh {
		if old, ok := g.ups[name]; ok && sameUpstream(old, nu) {
			merged[name] = old
			continue
		}
		merged[name] = nu
		start = append(start, nu)
	}
	for name, old := range g.ups {
		if merged[name] != old {
			stop = append(stop, old)
		}
	}
	g.ups = merged
	g.upsMu.Unlock()
	for i, v := range views {
		v.set.Store(sets[i])
	}
	closeAll(stop)
	for _, u := range start {
		g.launch(u)
	}
	g.log.Info("gateway: reloaded", "started", len(start), "stopped", len(stop), "kept", len(merged)-len(start))
	g.rebuild()
	return nil
}

// closeAll stops the upstreams together: a server that will not stop
// costs its grace periods (client.ProcessOptions.StopGrace, KillGrace),
// and one after another a few such servers would hold Close or Reload for
// the sum of theirs.
func closeAll(ups []*upstream) {
	var wg sync.WaitGroup
	for _, u := range ups {
		wg.Go(u.close)
	}
	wg.Wait()
}

func sameUpstream(a, b *upstream) bool {
	switch {
	case a.inproc != nil || b.inproc != nil:
		return a.inproc == b.inproc
	case a.cfg != nil && b.cfg != nil:
		return reflect.DeepEqual(*a.cfg, *b.cfg)
	case a.http != nil && b.http != nil:
		return reflect.DeepEqual(*a.http, *b.http)
	}
	return false
}
