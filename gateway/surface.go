package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/winbridge/winbridge/internal/jsonscan"
	"github.com/winbridge/winbridge/internal/toolname"
	"github.com/winbridge/winbridge/mcp"
)

// maxDescriptionBytes bounds a listed description: an upstream's
// description goes into every prompt of the model.
const maxDescriptionBytes = 4096

// maxIcons bounds the icons listed with a tool, resource, template or
// prompt.
const maxIcons = 8

// surface is what the model sees, rebuilt whenever an upstream changes;
// calls read the one current when they start.
type surface struct {
	tools   map[string]*exposed // by exposed name, denied and withheld ones included
	all     []*exposed          // every upstream tool, by server and tool
	prompts map[string]promptRoute
	set     *settings // the policy it was built with
}

type promptRoute struct{ server, prompt string }

// Risk is what a tool's annotations say about it.
type Risk struct {
	Destructive bool // destructiveHint true, or (per the spec's default) not read-only and no destructiveHint
	OpenWorld   bool // openWorldHint true or absent (the spec's default)
	ReadOnly    bool
}

// exposed is one upstream tool as the facade offers it.
type exposed struct {
	Name     string // exposed
	Server   string
	Tool     string // upstream's
	up       *upstream
	def      *mcp.Tool // as listed
	rule     *ToolRule
	Risk     Risk
	Approval bool   // needs approval
	Denied   string // why the policy refuses it ("" when allowed)
	Withheld string // why it cannot be offered at all (schema problems)
	Budgets  Budgets
	maxArgs  int
	input    *jsonschema.Resolved
	flat     *flatSchema // input's common shape, checked without jsonschema-go; nil if it has another
	output   *jsonschema.Resolved
	nulls    *nullPlan
	paths    []argPath
	bigExact bool // input judges integers past 2^53 exactly (args.go)
	// inNear and outNear are the numbers of the input and output schemas
	// (near.go).
	inNear, outNear schemaNumbers
	// inMul and outMul judge the schemas' multipleOf exactly (multiple.go).
	inMul, outMul *multiples
	// inNames are the property names the input schema declares: a member
	// that equals one only ignoring case is refused (casealias.go).
	inNames *propNames
	// outNames are the output schema's: a member of structured content
	// that equals one only ignoring case is refused.
	outNames *propNames
	// outBigExact: output judges integers past 2^53 exactly.
	outBigExact bool
	// inCost and outCost count what validating a value would cost, for
	// schemas with references (validcost.go).
	inCost, outCost *costGraph
}

func (e *exposed) key() string { return e.Server + "/" + e.Tool }

// rebuild recomputes the surface from the upstreams' lists and brings the
// downstream server's registrations in line; the mcp.Server tells the
// sessions with list_changed.
func (g *Gateway) rebuild() {
	defer g.changed()
	for _, v := range g.allViews() {
		v.rebuild()
	}
}

// listingKey is what a registration lists, to tell whether it changed:
// the definition encoded without its schemas, then the schemas as they
// are. Encoding them took two thirds of a rebuild (encoding/json compacts
// every json.RawMessage, a walk over each schema's bytes).
func listingKey(def *mcp.Tool) string {
	d := *def
	d.InputSchema, d.OutputSchema = nil, nil
	b, _ := json.Marshal(&d)
	return string(b) + "\x00" + string(def.InputSchema) + "\x00" + string(def.OutputSchema)
}

// rebuild recomputes the view's surface and registrations.
func (v *view) rebuild() {
	g := v.g
	v.buildMu.Lock()
	defer v.buildMu.Unlock()
	s := g.buildSurface(v.set.Load())
	v.surf.Store(s)

	// Tools.
	want := map[string]string{}
	for _, e := range s.all {
		if e.Denied != "" || e.Withheld != "" {
			continue
		}
		want[e.Name] = listingKey(e.def)
	}
	var gone []string
	for name := range v.listed {
		if _, ok := want[name]; !ok {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		slices.Sort(gone)
		v.srv.RemoveTools(gone...)
	}
	for _, e := range s.all {
		if w, ok := want[e.Name]; ok && v.listed[e.Name] != w {
			v.srv.AddToolRaw(e.def, v.handle)
		}
	}
	v.listed = want
	ups := g.upstreams()
	v.syncResources(ups)
	v.syncPrompts(s, ups)
}

// buildSurface names and shapes every upstream tool.
func (g *Gateway) buildSurface(st *settings) *surface {
	s := &surface{tools: map[string]*exposed{}, prompts: map[string]promptRoute{}, set: st}
	ups := g.upstreams()
	var keys []toolname.Key
	type item struct {
		u *upstream
		t *mcp.Tool
	}
	items := map[toolname.Key]item{}
	for _, u := range ups {
		name := u.name
		_, tools, _, _, _ := u.snapshot()
		for _, t := range tools {
			if t == nil {
				continue
			}
			k := toolname.Key{Server: name, Tool: t.Name}
			if _, dup := items[k]; dup {
				continue // a server listing a name twice: the first counts
			}
			items[k] = item{u, t}
			keys = append(keys, k)
		}
	}
	fixed := map[toolname.Key]string{}
	for key, r := range st.pol.Tools {
		sv, tl, _ := cutKey(key)
		k := toolname.Key{Server: sv, Tool: tl}
		if _, present := items[k]; present && r.Name != "" {
			fixed[k] = r.Name
		}
	}
	names, err := toolname.Build(keys, &toolname.Options{Max: st.profile.MaxNameLength, Fixed: fixed, Join: st.join})
	if err != nil {
		// Only a fixed name longer than this profile's maximum gets here
		// (the policy checked the rest): name everything without them.
		g.log.Error("gateway: naming tools", "err", err)
		names, _ = toolname.Build(keys, &toolname.Options{Max: st.profile.MaxNameLength, Join: st.join})
	}
	slices.SortFunc(keys, func(a, b toolname.Key) int {
		if c := strings.Compare(a.Server, b.Server); c != 0 {
			return c
		}
		return strings.Compare(a.Tool, b.Tool)
	})
	for _, k := range keys {
		it := items[k]
		n, _ := names.Name(k)
		e := g.expose(st, n, it.u, it.t)
		s.tools[n] = e
		s.all = append(s.all, e)
	}
	g.buildPrompts(s, ups)
	return s
}

// join makes a tool's candidate name. Gemini wants function names that
// start with a letter or "_".
func (st *settings) join(server, tool string) string {
	n := toolname.DefaultJoin(server, tool)
	if st.profile.Target == TargetGemini && n != "" {
		if c := n[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			n = "_" + n
		}
	}
	return n
}

// expose decides everything about one tool once per rebuild, so that
// calls only look up.
func (g *Gateway) expose(st *settings, name string, u *upstream, t *mcp.Tool) *exposed {
	e := &exposed{Name: name, Server: u.name, Tool: t.Name, up: u, rule: st.pol.Tools[u.name+"/"+t.Name]}
	r := e.rule
	if r == nil {
		r = &ToolRule{}
	}
	ann := t.Annotations
	if r.Annotations != nil {
		ann = r.Annotations
	}
	e.Risk = riskOf(ann)
	if ann != nil && len(ann.Title) > maxDescriptionBytes {
		// Listed as surely as the title; cut on a copy (ann may be an
		// in-process server's own value).
		ca := *ann
		ca.Title = cutListed(ann.Title)
		ann = &ca
	}
	e.Denied = st.denial(u.name, t.Name, r)
	e.Approval = st.needsApproval(u.name, t.Name, r, e.Risk)
	e.Budgets = r.Budgets.or(st.pol.Budgets).or(defaultBudgets)
	e.maxArgs = st.limits.MaxArgumentBytes
	if r.MaxArgumentBytes > 0 {
		e.maxArgs = r.MaxArgumentBytes
	}
	for _, p := range r.PathArgs {
		ap, _ := parseArgPath(p) // checked by the policy parser
		e.paths = append(e.paths, ap)
	}

	// Compiling reads a schema several times (multipleOf, numbers, names,
	// references, the cleaner), and an upstream can ask for four rebuilds
	// a second: 2.9 MB of enum took half a second. What is far past the
	// listed cap is withheld before anything reads it (cleaning rarely
	// shrinks a schema by much). The rest is read once per distinct
	// schema, and cleaned once per target (schemacache.go).
	if n := len(t.InputSchema) + len(t.OutputSchema); n > rawSchemaFactor*st.limits.MaxSchemaBytes {
		e.Withheld = fmt.Sprintf("its schemas are %d bytes as sent, past %d times limits.maxSchemaBytes (%d), withheld before they are compiled", n, rawSchemaFactor, st.limits.MaxSchemaBytes)
		g.log.Warn("gateway: a tool whose schemas pass the cap is withheld", "server", u.name, "tool", t.Name, "bytes", n, "cap", rawSchemaFactor*st.limits.MaxSchemaBytes)
		return e
	}

	// The upstream's own input schema is the one arguments are checked
	// against; it must compile. What is read from it depends on the
	// schema alone, not on the profile: what the profile changes (the
	// cleaning, the caps) is done after.
	in := g.schemas.prepare(t.InputSchema, true)
	if in.err != nil {
		e.Withheld = "input schema: " + in.err.Error()
		return e
	}
	e.input, e.inMul, e.flat, e.bigExact, e.inNear, e.inNames, e.inCost = in.res, in.mul, in.flat, in.bigExact, in.near, in.names, in.cost
	l := g.schemas.listedFor(in, t.InputSchema, st.profile.Target)
	if l.err != nil {
		e.Withheld = fmt.Sprintf("input schema for %s: %v", st.profile.Target, l.err)
		return e
	}
	e.nulls = l.nulls
	listed := l.schema
	def := &mcp.Tool{Name: name, Title: t.Title, InputSchema: listed, Annotations: ann, Icons: boundIcons(t.Icons)}
	if t.OutputSchema != nil {
		if out := g.schemas.prepare(t.OutputSchema, false); out.err == nil {
			e.output, e.outMul, e.outBigExact, e.outNear, e.outCost, e.outNames = out.res, out.mul, out.bigExact, out.near, out.cost, out.names
			def.OutputSchema = out.prose
		} else {
			g.log.Warn("gateway: an output schema that does not compile is not listed", "server", u.name, "tool", t.Name, "err", out.err)
		}
	}
	if n := len(listed) + len(def.OutputSchema); n > st.limits.MaxSchemaBytes {
		// Prose in a schema reaches the model as surely as a
		// description, and cutting a schema changes what it means.
		e.Withheld = fmt.Sprintf("its listed schemas are %d bytes, past limits.maxSchemaBytes (%d)", n, st.limits.MaxSchemaBytes)
		g.log.Warn("gateway: a tool whose schemas pass the cap is withheld", "server", u.name, "tool", t.Name, "bytes", n, "cap", st.limits.MaxSchemaBytes)
		return e
	}
	if r.Title != "" {
		def.Title = r.Title
	}
	if len(def.Title) > maxDescriptionBytes {
		// A title is listed as surely as a description.
		def.Title = cutUTF8(def.Title, maxDescriptionBytes) + " [...]"
	}
	desc := t.Description
	if r.Description != "" {
		desc = r.Description
	}
	if len(desc) > maxDescriptionBytes {
		desc = cutUTF8(desc, maxDescriptionBytes) + " [...]"
	}
	if !st.profile.NoRiskPrefixes {
		desc = st.riskPrefix(e.Risk) + desc
	}
	def.Description = desc
	e.def = def
	return e
}

// rawSchemaFactor times limits.maxSchemaBytes bounds a tool's schemas as
// the upstream sent them, before they are compiled.
const rawSchemaFactor = 4

// maxSchemaNesting bounds how deep a schema's JSON nests (objects and
// arrays) for jsonschema-go to compile it. Its Schema.UnmarshalJSON
// decodes each schema's whole text again, three times (as a boolean, a
// struct and a map), for each schema around it: the cost grows with the
// size times the depth. {"not":{"not":...}} 4000 deep, 32 KB, took 4.6 s
// and 3.3 GB to compile, and 10000 deep (what encoding/json allows, 80
// KB) about half a minute, for each distinct schema an upstream lists.
// At this depth, a schema of the largest raw size compiles in under a
// second; an input schema the facade lists nests at most maxSchemaDepth
// schemas, about half as many JSON levels.
const maxSchemaNesting = 128

// compileSchema resolves an upstream schema for validation. Only local
// references resolve: a schema that points elsewhere is not fetched.
func compileSchema(raw json.RawMessage, input bool) (*jsonschema.Resolved, error) {
	if len(raw) == 0 {
		raw = json.RawMessage(`{"type":"object"}`)
	}
	if jsonscan.NestsDeeper(raw, maxSchemaNesting) {
		return nil, fmt.Errorf("it nests more than %d levels deep", maxSchemaNesting)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	if input && s.Type != "object" && !(s.Type == "" && len(s.Types) == 0 && s.Properties != nil) {
		return nil, fmt.Errorf("want type \"object\", got %q", s.Type)
	}
	res, err := s.Resolve(nil)
	if err != nil {
		return nil, err
	}
	if err := checkRefs(raw); err != nil {
		return nil, err // refloop.go
	}
	return res, nil
}

// riskOf reads the annotations with the specification's defaults: a tool
// without hints is not read-only, may be destructive, and reaches an open
// world.
func riskOf(a *mcp.ToolAnnotations) Risk {
	var r Risk
	if a != nil && a.ReadOnlyHint != nil {
		r.ReadOnly = *a.ReadOnlyHint
	}
	r.Destructive = !r.ReadOnly
	if a != nil && a.DestructiveHint != nil && !r.ReadOnly {
		r.Destructive = *a.DestructiveHint
	}
	r.OpenWorld = true
	if a != nil && a.OpenWorldHint != nil {
		r.OpenWorld = *a.OpenWorldHint
	}
	return r
}

func (st *settings) riskPrefix(r Risk) string {
	var p string
	switch {
	case r.Destructive:
		p = st.risk.Destructive
	case !r.ReadOnly:
		p = st.risk.Writes
	}
	if r.OpenWorld {
		p += st.risk.OpenWorld
	}
	return p
}

// denial says why the profile refuses a tool, or "".
func (st *settings) denial(server, tool string, r *ToolRule) string {
	if r.Hidden {
		return "hidden by the policy"
	}
	pr := st.profile
	if len(pr.Allow) > 0 && !slices.ContainsFunc(pr.Allow, func(p string) bool { return toolPattern(p, server, tool) }) {
		return fmt.Sprintf("not allowed by profile %q", st.profNm)
	}
	if i := slices.IndexFunc(pr.Deny, func(p string) bool { return toolPattern(p, server, tool) }); i >= 0 {
		return fmt.Sprintf("denied by profile %q (%s)", st.profNm, pr.Deny[i])
	}
	return ""
}

func (st *settings) needsApproval(server, tool string, r *ToolRule, risk Risk) bool {
	switch r.Approval {
	case "always":
		return true
	case "never":
		return false
	}
	for _, rule := range st.pol.Approval.Rules {
		if toolPattern(rule.Tool, server, tool) {
			return rule.Require == "always"
		}
	}
	switch st.pol.Approval.Default {
	case "always":
		return true
	case "never":
		return false
	}
	return risk.Destructive || !risk.ReadOnly
}

// addTemplate registers a template, or skips one the server cannot
// match (mcp.Server panics on those: a programming error for its own
// templates, hostile input here).
func (v *view) addTemplate(t *mcp.ResourceTemplate, u *upstream) (ok bool) {
	g := v.g
	defer func() {
		if r := recover(); r != nil {
			g.log.Warn("gateway: skipping a resource template", "upstream", u.name, "template", t.URITemplate, "err", r)
			ok = false
		}
	}()
	v.srv.AddResourceTemplate(t, v.readFrom(u, true))
	return true
}

// readFrom reads from u, under the byte caps of the view's policy. A read
// through u's template (viaTemplate) is refused when another upstream's
// template matches the URI too (resources.go).
func (v *view) readFrom(u *upstream, viaTemplate bool) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		if x := v.reads.Load(); viaTemplate && x != nil {
			if x.contested[req.Params.URI] || len(x.answering(req.Params.URI, u)) > 0 {
				return nil, &mcp.Error{Code: CodeForwardRefused, Message: fmt.Sprintf("the gateway reads %q from no server: more than one server offers it", req.Params.URI)}
			}
		}
		c, err := u.client(ctx)
		if err != nil {
			return nil, u.redact(err)
		}
		res, err := c.ReadResource(ctx, req.Params.URI)
		if err != nil {
			return nil, u.redact(err)
		}
		lim := v.set.Load().limits
		capRead(res, lim.MaxBlockBytes, lim.MaxResultBytes)
		return res, nil
	}
}

// buildPrompts names the upstreams' prompts as tools are named.
func (g *Gateway) buildPrompts(s *surface, ups []*upstream) {
	st := s.set
	var keys []toolname.Key
	for _, u := range ups {
		name := u.name
		_, _, _, _, prompts := u.snapshot()
		for _, p := range prompts {
			if p == nil || p.Name == "" {
				continue
			}
			if !promptOffered(p) {
				g.log.Warn("gateway: a prompt whose arguments pass the caps is not offered", "upstream", name, "arguments", len(p.Arguments), "maxArguments", maxPromptArgs, "maxNameBytes", maxPromptArgNameBytes)
				continue
			}
			if st.pol.PromptsRequireTemplate && st.pol.Prompts[name+"/"+p.Name] == nil {
				continue // undeclared prompt text is not offered
			}
			keys = append(keys, toolname.Key{Server: name, Tool: p.Name})
		}
	}
	m, _ := toolname.Build(keys, &toolname.Options{Max: st.profile.MaxNameLength})
	for _, k := range keys {
		n, _ := m.Name(k)
		s.prompts[n] = promptRoute{k.Server, k.Tool}
	}
}

func (v *view) syncPrompts(s *surface, ups []*upstream) {
	g := v.g
	// A prompt is registered again when its definition or its upstream
	// changes: a Reload that replaces a server by one of the same name
	// offering the same prompt must not leave the handler of the stopped
	// one.
	want := map[string]registered{}
	defs := map[string]*mcp.Prompt{}
	byRoute := make(map[promptRoute]string, len(s.prompts))
	for n, r := range s.prompts {
		byRoute[r] = n
	}
	byName := map[string]*upstream{}
	for _, u := range ups {
		byName[u.name] = u
		_, _, _, _, prompts := u.snapshot()
		name := u.name
		for _, p := range prompts {
			if p == nil {
				continue
			}
			if n, ok := byRoute[promptRoute{name, p.Name}]; ok {
				pp := *p
				pp.Name = n
				listedPrompt(&pp)
				b, _ := json.Marshal(&pp)
				want[n] = registered{u, string(b)}
				defs[n] = &pp
			}
		}
	}
	var gone []string
	for n := range v.prompts {
		if _, ok := want[n]; !ok {
			gone = append(gone, n)
		}
	}
	if len(gone) > 0 {
		v.srv.RemovePrompts(gone...)
	}
	for n, def := range defs {
		if v.prompts[n] != want[n] {
			r := s.prompts[n]
			u := byName[r.server]
			orig := r.prompt
			tmpl := s.set.pol.Prompts[r.server+"/"+r.prompt]
			lim := s.set.limits
			v.srv.AddPrompt(def, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				c, err := u.client(ctx)
				if err != nil {
					return nil, u.redact(err)
				}
				res, err := c.GetPrompt(ctx, orig, req.Params.Arguments)
				if err != nil {
					return nil, u.redact(err)
				}
				if tmpl != nil {
					if err := verifyPrompt(tmpl, req.Params.Arguments, res); err != nil {
						g.log.Warn("gateway: a prompt differs from its declared template", "server", r.server, "prompt", orig, "err", err)
						return nil, promptRefusal(req.Params.Name, err)
					}
				}
				capPrompt(res, lim.MaxBlockBytes, lim.MaxResultBytes)
				res.Description = cutListed(res.Description)
				return res, nil
			})
		}
	}
	v.prompts = want
}
