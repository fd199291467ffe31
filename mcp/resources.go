package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/winbridge/winbridge/transport"
)

// ReadResourceRequest is the request a resource handler receives.
type ReadResourceRequest = ServerRequest[*ReadResourceParams]

// ResourceHandler reads a resource. It returns ErrResourceNotFound (or an
// error wrapping it) for a URI it does not have, which becomes the
// not-found error of the request's revision.
type ResourceHandler func(ctx context.Context, req *ReadResourceRequest) (*ReadResourceResult, error)

// ErrResourceNotFound reports that no resource has the requested URI.
var ErrResourceNotFound = errors.New("resource not found")

type serverResource struct {
	resource *Resource
	handler  ResourceHandler
}

type serverTemplate struct {
	template *ResourceTemplate
	match    *regexp.Regexp
	vars     []string
	handler  ResourceHandler
}

// AddResource registers a resource with a fixed URI, replacing one with the
// same URI. It panics on an invalid resource.
func (s *Server) AddResource(r *Resource, h ResourceHandler) {
	if r == nil || r.URI == "" || r.Name == "" || h == nil {
		panic("mcp: AddResource: a resource needs a URI, a name and a handler")
	}
	rr := *r
	s.resources.add(rr.URI, &serverResource{resource: &rr, handler: h})
	s.changed("notifications/resources/list_changed")
}

// AddResourceTemplate registers a family of resources whose URIs match an
// RFC 6570 template, replacing one with the same template. Reads of a
// matching URI go to h, with the template's variables available through
// TemplateVars. Supported expressions: {var} (no '/', '?' or '#'),
// {+var} (anything) and {#var}; variables are percent-decoded. It panics on
// an invalid template.
func (s *Server) AddResourceTemplate(t *ResourceTemplate, h ResourceHandler) {
	if t == nil || t.URITemplate == "" || t.Name == "" || h == nil {
		panic("mcp: AddResourceTemplate: a template needs a URI template, a name and a handler")
	}
	re, vars, err := compileURITemplate(t.URITemplate)
	if err != nil {
		panic(fmt.Sprintf("mcp: AddResourceTemplate %q: %v", t.URITemplate, err))
	}
	tt := *t
	s.templates.add(tt.URITemplate, &serverTemplate{template: &tt, match: re, vars: vars, handler: h})
	s.changed("notifications/resources/list_changed")
}

// RemoveResources removes resources by URI and templates by URI template.
func (s *Server) RemoveResources(uris ...string) {
	a := s.resources.remove(uris...)
	b := s.templates.remove(uris...)
	if a || b {
		s.changed("notifications/resources/list_changed")
	}
}

// ResourceUpdated tells the sessions subscribed to uri (resources/subscribe)
// and the open subscriptions/listen requests that asked for uri that it
// changed. It does not wait for the notifications to be written: each
// session gets its own, coalesced per URI (see Server.changed), so a
// client that reads slowly or not at all holds up neither the caller nor
// the other clients. Each send gets 5 s and the values, not the
// cancellation, of ctx.
func (s *Server) ResourceUpdated(ctx context.Context, uri string) {
	s.announce(ctx, Change{Method: "notifications/resources/updated", URI: uri})
}

func (s *Server) resourceUpdated(ctx context.Context, uri string) {
	s.notifyListeners("notifications/resources/updated", uri)
	ctx = context.WithoutCancel(ctx)
	for _, ss := range s.Sessions() {
		ss.mu.Lock()
		subscribed := ss.subscriptions[uri]
		ss.mu.Unlock()
		if subscribed {
			ss.notify.post("notifications/resources/updated "+uri, func() {
				ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				defer cancel()
				_ = ss.connection().Notify(ctx, "notifications/resources/updated", &ResourceUpdatedParams{URI: uri})
			})
		}
	}
}

// TemplateVars returns the template variables of a templated resource read
// (nil for a fixed resource).
func (r *ServerRequest[P]) TemplateVars() map[string]string { return r.vars }

// URITemplateMatcher returns whether a URI matches the template t, as a
// Server matches the templates of AddResourceTemplate: a server in front
// of others (a gateway) uses it to see which of theirs would answer a
// URI.
func URITemplateMatcher(t string) (func(uri string) bool, error) {
	re, _, err := compileURITemplate(t)
	if err != nil {
		return nil, err
	}
	return re.MatchString, nil
}

// templateExpr is a URI template's expression. It compiles on first
// use: a package's init is paid by every server at start-up.
var templateExpr = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\{([+#]?)([A-Za-z0-9_.]+)\}`)
})

func compileURITemplate(t string) (*regexp.Regexp, []string, error) {
	var b strings.Builder
	var vars []string
	b.WriteString("^")
	last := 0
	for _, m := range templateExpr().FindAllStringSubmatchIndex(t, -1) {
		b.WriteString(regexp.QuoteMeta(t[last:m[0]]))
		op, name := t[m[2]:m[3]], t[m[4]:m[5]]
		switch op {
		case "":
			b.WriteString(`([^/?#]*)`)
		case "+":
			b.WriteString(`(.*)`)
		case "#":
			b.WriteString(`#(.*)`)
		}
		vars = append(vars, name)
		last = m[1]
	}
	rest := t[last:]
	if strings.ContainsAny(rest, "{}") {
		return nil, nil, fmt.Errorf("unsupported expression in %q", rest)
	}
	b.WriteString(regexp.QuoteMeta(rest))
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return re, vars, err
}

// lookupResource finds the handler for uri: a fixed resource first, then
// the first template (in template order) that matches.
func (s *Server) lookupResource(uri string) (ResourceHandler, map[string]string, bool) {
	if r, ok := s.resources.get(uri); ok {
		return r.handler, nil, true
	}
	for _, t := range s.templates.all() {
		m := t.match.FindStringSubmatch(uri)
		if m == nil {
			continue
		}
		vars := make(map[string]string, len(t.vars))
		for i, name := range t.vars {
			v, err := url.PathUnescape(m[i+1])
			if err != nil {
				v = m[i+1]
			}
			vars[name] = v
		}
		return t.handler, vars, true
	}
	return nil, nil, false
}

// notFound is the resource-not-found error of revision v: -32002 before
// 2026-07-28, invalid params (SEP-2164) from then on.
func notFound(uri, v string) *Error {
	code := int64(CodeResourceNotFound)
	if IsStateless(v) {
		code = CodeInvalidParams
	}
	return transport.NewError(code, "Resource not found", map[string]string{"uri": uri})
}

func (ss *ServerSession) resourcesList(_ context.Context, r *transport.Request) (any, error) {
	items, next, ci, err := listPage(ss, r, &ss.srv.resources, func(it *serverResource, v string) *Resource { return forResource(it.resource, v) })
	if err != nil {
		return nil, err
	}
	res := &ListResourcesResult{Resources: items, NextCursor: next}
	ss.finishCacheable(ci, &res.CacheHint, &res.ResultEnvelope)
	return res, nil
}

func (ss *ServerSession) templatesList(_ context.Context, r *transport.Request) (any, error) {
	items, next, ci, err := listPage(ss, r, &ss.srv.templates, func(it *serverTemplate, v string) *ResourceTemplate { return forTemplate(it.template, v) })
	if err != nil {
		return nil, err
	}
	res := &ListResourceTemplatesResult{ResourceTemplates: items, NextCursor: next}
	ss.finishCacheable(ci, &res.CacheHint, &res.ResultEnvelope)
	return res, nil
}

func (ss *ServerSession) resourcesRead(ctx context.Context, r *transport.Request) (any, error) {
	var p ReadResourceParams
	pm, err := decodeRequest(r, &p, &p.Meta)
	if err != nil {
		return nil, err
	}
	ci, err := ss.info(r.Method, &pm, p.Meta)
	if err != nil {
		return nil, err
	}
	if p.URI == "" {
		return nil, invalidParams(`resources/read needs "uri"`, nil)
	}
	h, vars, ok := ss.srv.lookupResource(p.URI)
	if !ok {
		return nil, notFound(p.URI, ci.version)
	}
	return ss.runWithInput(ctx, ci, bindingOf(r.Method, p.URI, nil), p.InputResponses, p.RequestState, func(in *input) (any, error) {
		res, err := h(ctx, &ReadResourceRequest{Session: ss, ID: r.ID, Params: &p, info: ci, vars: vars, input: in})
		switch {
		case errors.Is(err, ErrResourceNotFound):
			return nil, notFound(p.URI, ci.version)
		case err != nil:
			return nil, err
		case res == nil || len(res.Contents) == 0:
			// An empty read is not a read (SEP-2164).
			return nil, notFound(p.URI, ci.version)
		}
		if ci.stateless {
			c := *res
			c.CacheHint = ss.srv.cacheHint()
			res = &c
		} else if before(ci.version, Version20250618) {
			res = forReadResult(res)
		}
		ss.finish(ci, &res.ResultEnvelope)
		return res, nil
	})
}

func (ss *ServerSession) subscribe(ctx context.Context, r *transport.Request) (any, error) {
	var p SubscribeParams
	pm, err := decodeRequest(r, &p, &p.Meta)
	if err != nil {
		return nil, err
	}
	ci, err := ss.info(r.Method, &pm, p.Meta)
	if err != nil {
		return nil, err
	}
	if ci.stateless {
		return nil, &Error{Code: CodeMethodNotFound, Message: "Method not found: " + r.Method + " does not exist in " + ci.version + "; use subscriptions/listen"}
	}
	if p.URI == "" {
		return nil, invalidParams(r.Method+` needs "uri"`, nil)
	}
	if f := ss.srv.opts.Subscribe; f != nil {
		if err := f(ctx, ss, p.URI, r.Method == "resources/subscribe"); err != nil {
			return nil, err
		}
	}
	ss.mu.Lock()
	if ss.subscriptions == nil {
		ss.subscriptions = map[string]bool{}
	}
	if r.Method == "resources/subscribe" {
		if !ss.subscriptions[p.URI] && len(ss.subscriptions) >= ss.srv.opts.MaxSubscriptions {
			ss.mu.Unlock()
			return nil, invalidParams("this session is already subscribed to "+strconv.Itoa(ss.srv.opts.MaxSubscriptions)+
				" resources (ServerOptions.MaxSubscriptions); unsubscribe from one first", nil)
		}
		ss.subscriptions[p.URI] = true
	} else {
		delete(ss.subscriptions, p.URI)
	}
	ss.mu.Unlock()
	return &EmptyResult{}, nil
}
