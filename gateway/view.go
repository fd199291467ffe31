package gateway

import (
	"sync"
	"sync/atomic"

	"github.com/winbridge/winbridge/mcp"
)

// view is the surface of one profile: its own downstream server, names,
// schemas and decisions, over the upstreams all views share. Budgets of
// concurrency per tool are shared too (they protect the upstream);
// sessions are each view's own.
type view struct {
	g       *Gateway
	profile string // as asked; "" is the policy's default
	srv     *mcp.Server
	set     atomic.Pointer[settings] // the policy in force; Reload swaps it
	surf    atomic.Pointer[surface]

	buildMu  sync.Mutex
	listed   map[string]string         // exposed tool name -> encoded definition registered on srv
	resURIs  map[string]registered     // resource URI -> what srv serves under it
	tmplURIs map[string]registered     // URI template -> what srv serves under it
	resOwner map[string]*upstream      // listed resource URI -> its upstream
	reads    atomic.Pointer[readIndex] // what a read through a template checks (resources.go)
	prompts  map[string]registered     // exposed prompt name -> what srv serves under it
}

func (g *Gateway) newView(profile string, st *settings) *view {
	v := &view{g: g, profile: profile, listed: map[string]string{}, resURIs: map[string]registered{}, tmplURIs: map[string]registered{}, prompts: map[string]registered{}}
	v.srv = mcp.NewServer(g.info, &mcp.ServerOptions{Logger: g.log, UnknownTool: v.handle, Subscribe: v.subscribe})
	v.set.Store(st)
	v.surf.Store(&surface{tools: map[string]*exposed{}, set: st})
	return v
}

func (g *Gateway) allViews() []*view {
	g.viewsMu.Lock()
	defer g.viewsMu.Unlock()
	return append([]*view(nil), g.views...)
}

// ServerFor returns the downstream server of another profile of the
// policy, over the same upstreams: serve several on different HTTP routes
// to give each kind of client its own surface (names, schema target,
// allowed tools). Asking twice for a profile returns the same server.
func (g *Gateway) ServerFor(profile string) (*mcp.Server, error) {
	g.viewsMu.Lock()
	for _, v := range g.views {
		if v.profile == profile || v.set.Load().profNm == profile {
			g.viewsMu.Unlock()
			return v.srv, nil
		}
	}
	st, err := newSettings(g.main.set.Load().pol, profile, g.opts.PathMapper)
	if err != nil {
		g.viewsMu.Unlock()
		return nil, err
	}
	v := g.newView(profile, st)
	g.views = append(g.views, v)
	g.viewsMu.Unlock()
	v.rebuild()
	return v.srv, nil
}
