package gateway

import (
	"encoding/json"
	"slices"

	"github.com/winbridge/winbridge/mcp"
)

// Resources keep their URIs, so two upstreams can list the same URI, or
// the same URI template. Whichever the facade gave it to would receive
// the reads meant for the other, learning what the user reads and
// answering in the other's place: a hostile upstream would only need to
// list the URIs of a file server. So a URI or template listed by two
// upstreams is offered by neither, with a warning naming them.
//
// A file server offers its files through a template rather than a list,
// and the facade's server looks fixed URIs up before templates, and
// templates in the order of their text. So a listed URI that another
// upstream's template matches is not offered either, and a read through a
// template that another upstream's template matches too is refused.

// registered is what a view's server serves under a URI or template: the
// upstream its handler reads from, and the definition listed.
type registered struct {
	u   *upstream
	def string
}

// offer is one upstream's listing of a URI or template.
type offer struct {
	u    *upstream
	res  *mcp.Resource
	tmpl *mcp.ResourceTemplate
}

// syncResources registers the upstreams' resources and templates, each
// with a handler that reads from the upstream listing it now: a URI that
// passes from one upstream to another is registered again.
func (v *view) syncResources(ups []*upstream) {
	g := v.g
	res := map[string]*offer{}
	tmpl := map[string]*offer{}
	// A URI or template -> the servers listing it, when two or more do.
	sharedRes, sharedTmpl := map[string][]string{}, map[string][]string{}
	share := func(shared map[string][]string, key string, first, u *upstream) {
		if first == u {
			return // listed twice by one server: its first entry stands
		}
		if len(shared[key]) == 0 {
			shared[key] = []string{first.name}
		}
		if !slices.Contains(shared[key], u.name) {
			shared[key] = append(shared[key], u.name)
		}
	}
	for _, u := range ups {
		_, _, resources, templates, _ := u.snapshot()
		for _, r := range resources {
			if r == nil || r.URI == "" || r.Name == "" {
				continue
			}
			if o := res[r.URI]; o != nil {
				share(sharedRes, r.URI, o.u, u)
				continue
			}
			if r = listedResource(r); r == nil {
				g.log.Warn("gateway: a resource whose URI passes the cap is not offered", "upstream", u.name, "cap", maxListedURIBytes)
				continue
			}
			res[r.URI] = &offer{u: u, res: r}
		}
		for _, t := range templates {
			if t == nil || t.URITemplate == "" || t.Name == "" {
				continue
			}
			if o := tmpl[t.URITemplate]; o != nil {
				share(sharedTmpl, t.URITemplate, o.u, u)
				continue
			}
			if t = listedTemplate(t); t == nil {
				g.log.Warn("gateway: a resource template that passes the cap is not offered", "upstream", u.name, "cap", maxListedURIBytes)
				continue
			}
			tmpl[t.URITemplate] = &offer{u: u, tmpl: t}
		}
	}
	// What is withheld for being claimed twice still claims its URIs: a
	// third server's template must not answer them.
	idx := &readIndex{matchers: v.templateMatchers(tmpl, sharedTmpl), contested: map[string]bool{}, owner: map[string]*upstream{}}
	for uri, servers := range sharedRes {
		g.log.Warn("gateway: a resource URI listed by several servers is offered by none", "uri", uri, "servers", servers)
		delete(res, uri)
		idx.contested[uri] = true
	}
	for t, servers := range sharedTmpl {
		g.log.Warn("gateway: a resource template listed by several servers is offered by none", "template", t, "servers", servers)
		delete(tmpl, t)
	}

	for uri, o := range res {
		if others := idx.answering(uri, o.u); len(others) > 0 {
			g.log.Warn("gateway: a resource URI another server's template matches is offered by neither", "uri", uri, "servers", append([]string{o.u.name}, others...))
			delete(res, uri)
			idx.contested[uri] = true // nor read through the template
		}
	}
	for uri, o := range res {
		idx.owner[uri] = o.u
	}
	v.reads.Store(idx) // before the handlers that read it are registered
	for uri, prev := range v.resOwner {
		if idx.owner[uri] != prev {
			// A URI prev answered is another's now, or disputed: prev's
			// subscriber ends a subscription to it (subscribe.go).
			prev.wakeSubscriber()
		}
	}

	wantRes := make(map[string]registered, len(res))
	owner := make(map[string]*upstream, len(res))
	for uri, o := range res {
		b, _ := json.Marshal(o.res)
		reg := registered{o.u, string(b)}
		if v.resURIs[uri] != reg {
			v.srv.AddResource(o.res, v.readFrom(o.u, false)) // replaces the previous owner's handler
		}
		wantRes[uri], owner[uri] = reg, o.u
	}
	wantTmpl := make(map[string]registered, len(tmpl))
	for t, o := range tmpl {
		b, _ := json.Marshal(o.tmpl)
		reg := registered{o.u, string(b)}
		if v.tmplURIs[t] != reg && !v.addTemplate(o.tmpl, o.u) {
			continue
		}
		wantTmpl[t] = reg
	}
	var gone []string
	for uri := range v.resURIs {
		if _, ok := wantRes[uri]; !ok {
			gone = append(gone, uri)
		}
	}
	for t := range v.tmplURIs {
		if _, ok := wantTmpl[t]; !ok {
			gone = append(gone, t)
		}
	}
	if len(gone) > 0 {
		v.srv.RemoveResources(gone...)
	}
	v.resURIs, v.tmplURIs, v.resOwner = wantRes, wantTmpl, owner
}

// readIndex is what a read through a template checks: the offered
// templates, and the listed URIs withheld because two servers claim them
// (contested). owner is the upstream of each offered URI, for the relay of
// resource updates (subscribe.go), which does not wait for a rebuild.
type readIndex struct {
	matchers  []tmplMatcher
	contested map[string]bool
	owner     map[string]*upstream
}

// disputed reports whether u must not answer for uri: another upstream
// claims it too, or offers it in u's place. A URI nobody lists now (u is
// restarting, say) is not disputed: u may list it again.
func (x *readIndex) disputed(uri string, u *upstream) bool {
	if x == nil {
		return false
	}
	if x.contested[uri] {
		return true
	}
	o := x.owner[uri]
	return o != nil && o != u
}

// tmplMatcher is one listed template, and the upstream that offers it
// (nil: several list it, and it is offered by none).
type tmplMatcher struct {
	u        *upstream
	servers  []string
	template string
	match    func(uri string) bool
}

// templateMatchers compiles the offered templates, reusing those compiled
// at the last rebuild (an upstream that floods list_changed relists its
// templates every time). Called under buildMu.
func (v *view) templateMatchers(tmpl map[string]*offer, shared map[string][]string) []tmplMatcher {
	prev := map[string]func(string) bool{}
	if old := v.reads.Load(); old != nil {
		for _, m := range old.matchers {
			prev[m.template] = m.match
		}
	}
	out := make([]tmplMatcher, 0, len(tmpl)+len(shared))
	add := func(t string, u *upstream, servers []string) {
		match := prev[t]
		if match == nil {
			var err error
			if match, err = mcp.URITemplateMatcher(t); err != nil {
				return // the server cannot match it either: addTemplate skips it
			}
		}
		out = append(out, tmplMatcher{u, servers, t, match})
	}
	for t, o := range tmpl {
		if _, ok := shared[t]; !ok {
			add(t, o.u, []string{o.u.name})
		}
	}
	for t, servers := range shared {
		add(t, nil, servers)
	}
	return out
}

// answering returns the servers other than u with an offered template
// that matches uri.
func (x *readIndex) answering(uri string, u *upstream) []string {
	var out []string
	for _, m := range x.matchers {
		if m.u == u || !m.match(uri) {
			continue
		}
		for _, n := range m.servers {
			if n != u.name && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}
