package client

import (
	"context"
	"errors"

	"github.com/winbridge/winbridge/mcp"
)

// ListResources returns all of the server's resources.
func (c *Client) ListResources(ctx context.Context, opts ...CallOption) ([]*mcp.Resource, error) {
	return listAll(ctx, c, "resources/list", func(r *mcp.ListResourcesResult) ([]*mcp.Resource, string) {
		return r.Resources, r.NextCursor
	}, opts)
}

// ListResourceTemplates returns all of the server's resource templates.
func (c *Client) ListResourceTemplates(ctx context.Context, opts ...CallOption) ([]*mcp.ResourceTemplate, error) {
	return listAll(ctx, c, "resources/templates/list", func(r *mcp.ListResourceTemplatesResult) ([]*mcp.ResourceTemplate, string) {
		return r.ResourceTemplates, r.NextCursor
	}, opts)
}

// ReadResource reads a resource. A URI the server does not have is an
// *mcp.Error: -32002 before 2026-07-28, -32602 since.
func (c *Client) ReadResource(ctx context.Context, uri string, opts ...CallOption) (*mcp.ReadResourceResult, error) {
	var res mcp.ReadResourceResult
	if err := c.callWithInput(ctx, "resources/read", &mcp.ReadResourceParams{URI: uri}, &res, opts...); err != nil {
		return nil, err
	}
	return &res, nil
}

// Subscribe asks for notifications/resources/updated about uri, delivered
// to Options.OnResourceUpdated. In 2026-07-28 the client's
// subscriptions/listen request is opened again with uri in its filter
// (listen.go): Subscribe returns once the server has acknowledged it, and
// fails if the server does not offer subscriptions or refuses uri.
func (c *Client) Subscribe(ctx context.Context, uri string, opts ...CallOption) error {
	if !c.stateless {
		return c.call(ctx, "resources/subscribe", &mcp.SubscribeParams{URI: uri}, nil, opts...)
	}
	if r := c.capabilities.Resources; r == nil || !r.Subscribe {
		return errors.New("resources/subscribe: the server does not offer resource subscriptions")
	}
	ctx, cancel, _ := c.operation(ctx, opts)
	defer cancel()
	return c.changeSubs(ctx, uri, true)
}

// Unsubscribe cancels a Subscribe.
func (c *Client) Unsubscribe(ctx context.Context, uri string, opts ...CallOption) error {
	if !c.stateless {
		return c.call(ctx, "resources/unsubscribe", &mcp.UnsubscribeParams{URI: uri}, nil, opts...)
	}
	ctx, cancel, _ := c.operation(ctx, opts)
	defer cancel()
	return c.changeSubs(ctx, uri, false)
}

// ListPrompts returns all of the server's prompts.
func (c *Client) ListPrompts(ctx context.Context, opts ...CallOption) ([]*mcp.Prompt, error) {
	return listAll(ctx, c, "prompts/list", func(r *mcp.ListPromptsResult) ([]*mcp.Prompt, string) {
		return r.Prompts, r.NextCursor
	}, opts)
}

// GetPrompt renders a prompt with arguments.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string, opts ...CallOption) (*mcp.GetPromptResult, error) {
	var res mcp.GetPromptResult
	if err := c.callWithInput(ctx, "prompts/get", &mcp.GetPromptParams{Name: name, Arguments: args}, &res, opts...); err != nil {
		return nil, err
	}
	return &res, nil
}

// Complete asks for completions of an argument of a prompt
// (*mcp.PromptReference) or a resource template
// (*mcp.ResourceTemplateReference); resolved holds the values of arguments
// already chosen, which a server may use to narrow its suggestions.
func (c *Client) Complete(ctx context.Context, ref mcp.Reference, arg mcp.CompleteArgument, resolved map[string]string, opts ...CallOption) (*mcp.Completion, error) {
	p := &mcp.CompleteParams{Ref: ref, Argument: arg}
	if len(resolved) > 0 {
		p.Context = &mcp.CompleteContext{Arguments: resolved}
	}
	var res mcp.CompleteResult
	if err := c.call(ctx, "completion/complete", p, &res, opts...); err != nil {
		return nil, err
	}
	return &res.Completion, nil
}
