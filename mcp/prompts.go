package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/winbridge/winbridge/transport"
)

// GetPromptRequest is the request a prompt handler receives.
type GetPromptRequest = ServerRequest[*GetPromptParams]

// PromptHandler renders a prompt. Required arguments have been checked.
type PromptHandler func(ctx context.Context, req *GetPromptRequest) (*GetPromptResult, error)

// CompleteRequest is the request a completion handler receives.
type CompleteRequest = ServerRequest[*CompleteParams]

// CompletionHandler suggests values for a prompt argument or a resource
// template variable.
type CompletionHandler func(ctx context.Context, req *CompleteRequest) (*CompleteResult, error)

type serverPrompt struct {
	prompt  *Prompt
	handler PromptHandler
}

// AddPrompt registers a prompt, replacing one of the same name. It panics
// on an invalid prompt.
func (s *Server) AddPrompt(p *Prompt, h PromptHandler) {
	if p == nil || p.Name == "" || h == nil {
		panic("mcp: AddPrompt: a prompt needs a name and a handler")
	}
	pp := *p
	s.prompts.add(pp.Name, &serverPrompt{prompt: &pp, handler: h})
	s.changed("notifications/prompts/list_changed")
}

// RemovePrompts removes the named prompts.
func (s *Server) RemovePrompts(names ...string) {
	if s.prompts.remove(names...) {
		s.changed("notifications/prompts/list_changed")
	}
}

func (ss *ServerSession) promptsList(_ context.Context, r *transport.Request) (any, error) {
	items, next, ci, err := listPage(ss, r, &ss.srv.prompts, func(it *serverPrompt, v string) *Prompt { return forPrompt(it.prompt, v) })
	if err != nil {
		return nil, err
	}
	res := &ListPromptsResult{Prompts: items, NextCursor: next}
	ss.finishCacheable(ci, &res.CacheHint, &res.ResultEnvelope)
	return res, nil
}

func (ss *ServerSession) promptsGet(ctx context.Context, r *transport.Request) (any, error) {
	var p GetPromptParams
	pm, err := decodeRequest(r, &p, &p.Meta)
	if err != nil {
		return nil, err
	}
	ci, err := ss.info(r.Method, &pm, p.Meta)
	if err != nil {
		return nil, err
	}
	sp, ok := ss.srv.prompts.get(p.Name)
	if !ok {
		return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("Unknown prompt: %q", p.Name)}
	}
	for _, a := range sp.prompt.Arguments {
		if _, given := p.Arguments[a.Name]; a.Required && !given {
			return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("prompt %q: missing required argument %q", p.Name, a.Name)}
		}
	}
	args, _ := json.Marshal(p.Arguments)
	return ss.runWithInput(ctx, ci, bindingOf(r.Method, p.Name, args), p.InputResponses, p.RequestState, func(in *input) (any, error) {
		res, err := sp.handler(ctx, &GetPromptRequest{Session: ss, ID: r.ID, Params: &p, info: ci, input: in})
		if err != nil {
			return nil, err
		}
		c := *res
		c.Messages = slices.Clone(c.Messages)
		for i, m := range c.Messages {
			if m == nil {
				continue
			}
			mm := *m
			if blocks := forContent([]Content{mm.Content}, ci.version); len(blocks) == 1 {
				mm.Content = blocks[0]
			}
			c.Messages[i] = &mm
		}
		ss.finish(ci, &c.ResultEnvelope)
		return &c, nil
	})
}

func (ss *ServerSession) complete(ctx context.Context, r *transport.Request) (any, error) {
	var p CompleteParams
	pm, err := decodeRequest(r, &p, &p.Meta)
	if err != nil {
		return nil, err
	}
	ci, err := ss.info(r.Method, &pm, p.Meta)
	if err != nil {
		return nil, err
	}
	h := ss.srv.opts.CompletionHandler
	if h == nil {
		return nil, &Error{Code: CodeMethodNotFound, Message: "Method not found: the server offers no completions"}
	}
	switch ref := p.Ref.(type) {
	case *PromptReference:
		if _, ok := ss.srv.prompts.get(ref.Name); !ok {
			return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("Unknown prompt: %q", ref.Name)}
		}
	case *ResourceTemplateReference:
		if _, ok := ss.srv.templates.get(ref.URI); !ok {
			if _, ok := ss.srv.resources.get(ref.URI); !ok {
				return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("Unknown resource template: %q", ref.URI)}
			}
		}
	default:
		return nil, invalidParams("unknown completion reference type", nil)
	}
	res, err := h(ctx, &CompleteRequest{Session: ss, ID: r.ID, Params: &p, info: ci})
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, err
	}
	c := *res
	if len(c.Completion.Values) > 100 {
		// The protocol caps a completion at 100 values.
		c.Completion.Values = c.Completion.Values[:100]
		c.Completion.HasMore = Ptr(true)
	}
	ss.finish(ci, &c.ResultEnvelope)
	return &c, nil
}
