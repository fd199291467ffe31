package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/winbridge/winbridge/internal/jsonscan"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// Handlers for what a server may ask of the client. Setting one declares
// the matching capability. In the legacy era the server sends them as
// requests; in 2026-07-28 they arrive inside an InputRequiredResult and the
// client retries the original request with the answers, automatically.

// SamplingHandler samples the client's model for the server.
type SamplingHandler func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)

// ElicitationHandler asks the user for input. For an accepted form, the
// client fills in the defaults of properties the user left out (SEP-1034).
type ElicitationHandler func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error)

// RawHandler answers a server's request with its params as the server
// sent them, and its result is sent as it is (see Options.OnSamplingRaw).
type RawHandler func(ctx context.Context, params json.RawMessage) (json.RawMessage, error)

// RootsHandler lists the client's roots.
type RootsHandler func(ctx context.Context) (*mcp.ListRootsResult, error)

// maxRounds bounds the multi round-trip retries of one request: a server
// that keeps asking is broken, and the loop must end.
const maxRounds = 16

// maxInputs bounds the input requests answered for one request, over all
// its rounds, as maxTaskInputs does for a task. maxRounds alone did not:
// one round may hold as many requests as a message has room for (tens of
// thousands), and each is a prompt to the user or a sampling of the model.
// The count is checked before a round's requests are answered, so a round
// beyond it answers none of them.
const maxInputs = 64

// capabilities adds what the handlers imply to the declared capabilities.
func (o *Options) capabilities() mcp.ClientCapabilities {
	c := o.Capabilities
	if (o.OnSampling != nil || o.OnSamplingRaw != nil) && c.Sampling == nil {
		c.Sampling = &mcp.SamplingCapability{}
	}
	if (o.OnElicitation != nil || o.OnElicitationRaw != nil) && c.Elicitation == nil {
		c.Elicitation = &mcp.ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}}
	}
	if o.OnRoots != nil && c.Roots == nil {
		c.Roots = &mcp.RootsCapability{ListChanged: true}
	}
	return c
}

// fulfil answers one input request with the local handlers.
func (c *Client) fulfil(ctx context.Context, method string, params any) (any, error) {
	if h := c.rawHandler(method); h != nil && params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		return h(ctx, b)
	}
	switch method {
	case "sampling/createMessage":
		p, _ := params.(*mcp.CreateMessageParams)
		if c.opts.OnSampling == nil || p == nil {
			break
		}
		return c.opts.OnSampling(ctx, p)
	case "elicitation/create":
		p, _ := params.(*mcp.ElicitParams)
		if c.opts.OnElicitation == nil || p == nil {
			break
		}
		res, err := c.opts.OnElicitation(ctx, p)
		if err == nil && res != nil {
			applyDefaults(p, res)
		}
		return res, err
	case "roots/list":
		if c.opts.OnRoots == nil {
			break
		}
		return c.opts.OnRoots(ctx)
	}
	return nil, &mcp.Error{Code: mcp.CodeMethodNotFound, Message: "Method not found: the client has no handler for " + method}
}

// rawHandler is the raw handler of method, or nil.
func (c *Client) rawHandler(method string) RawHandler {
	switch method {
	case "sampling/createMessage":
		return c.opts.OnSamplingRaw
	case "elicitation/create":
		return c.opts.OnElicitationRaw
	}
	return nil
}

// applyDefaults fills in, for an accepted form, the schema's defaults of
// the properties the user did not give (SEP-1034).
func applyDefaults(p *mcp.ElicitParams, res *mcp.ElicitResult) {
	if res.Action != mcp.ElicitActionAccept || p.RequestedSchema == nil {
		return
	}
	for name, prop := range p.RequestedSchema.Properties {
		if prop == nil || prop.Default == nil {
			continue
		}
		if _, given := res.Content[name]; given {
			continue
		}
		if res.Content == nil {
			res.Content = map[string]any{}
		}
		res.Content[name] = prop.Default
	}
}

// serveInput answers a server's legacy-era request for input; serve
// sends the answer.
func (c *Client) serveInput(ctx context.Context, r *transport.Request) (any, error) {
	var params any
	switch r.Method {
	case "sampling/createMessage":
		params = new(mcp.CreateMessageParams)
	case "elicitation/create":
		params = new(mcp.ElicitParams)
	}
	if params != nil && len(r.Params) > 0 {
		if err := json.Unmarshal(r.Params, params); err != nil {
			return nil, &mcp.Error{Code: mcp.CodeInvalidParams, Message: "invalid params for " + r.Method + ": " + err.Error()}
		}
		if h := c.rawHandler(r.Method); h != nil {
			// Checked as the typed handler's params are, and passed on
			// as they came.
			return h(ctx, bytes.Clone(r.Params))
		}
	}
	return c.fulfil(ctx, r.Method, params)
}

// retryable are the params of requests that may need input (2026-07-28).
func retryable(params any) (*mcp.InputResponses, *string) {
	switch p := params.(type) {
	case *mcp.CallToolParams:
		return &p.InputResponses, &p.RequestState
	case *toolCall:
		return &p.InputResponses, &p.RequestState
	case *mcp.GetPromptParams:
		return &p.InputResponses, &p.RequestState
	case *mcp.ReadResourceParams:
		return &p.InputResponses, &p.RequestState
	}
	return nil, nil
}

// callWithInput makes a request and, in 2026-07-28, answers the server's
// input requests and retries until the server completes it.
//
// The call's timeout bounds the whole call, every round (and the awaiting
// of a task the server makes of it) sharing one deadline, as one request
// of the legacy era is bounded while the client answers the server's
// requests: bounding each round let a server that asks again and again,
// slowly, hold the caller for rounds times the timeout. The handlers get
// that deadline in their context.
func (c *Client) callWithInput(ctx context.Context, method string, params, result any, opts ...CallOption) error {
	responses, state := retryable(params)
	if !c.stateless || responses == nil {
		return c.call(ctx, method, params, result, opts...)
	}
	ctx, cancel, o := c.operation(ctx, opts)
	defer cancel()
	inputs := 0
	for range maxRounds {
		r := round{result: result}
		if err := c.callWith(ctx, method, params, &r, o); err != nil {
			return err
		}
		if r.complete {
			if r.err != nil {
				return fmt.Errorf("%s: decoding the result: %w", method, r.err)
			}
			return nil
		}
		raw := r.raw
		var head struct {
			ResultType    string            `json:"resultType"`
			InputRequests mcp.InputRequests `json:"inputRequests"`
			RequestState  string            `json:"requestState"`
		}
		if err := json.Unmarshal(raw, &head); err != nil {
			return fmt.Errorf("%s: decoding the result: %w", method, err)
		}
		if res, ok := result.(*mcp.CallToolResult); ok && head.ResultType == mcp.ResultTask {
			// The server made the call a task: await it.
			r, err := c.awaitCall(ctx, toolName(params), raw)
			if err != nil {
				return err
			}
			*res = *r
			return nil
		}
		if head.ResultType != mcp.ResultInputRequired {
			if err := json.Unmarshal(raw, result); err != nil {
				return fmt.Errorf("%s: decoding the result: %w", method, err)
			}
			return nil
		}
		if inputs += len(head.InputRequests); inputs > maxInputs {
			return fmt.Errorf("%s: the server asked for input more than %d times", method, maxInputs)
		}
		answers := mcp.InputResponses{}
		for key, in := range head.InputRequests {
			if in == nil {
				continue
			}
			res, err := c.fulfil(ctx, in.Method, in.Params)
			if err != nil {
				return fmt.Errorf("%s: answering the server's %s request %q: %w", method, in.Method, key, err)
			}
			if err := answers.Set(key, res); err != nil {
				return err
			}
		}
		*responses, *state = answers, head.RequestState
	}
	return fmt.Errorf("%s: the server asked for input more than %d times", method, maxRounds)
}

// round is what callWithInput decodes a result into: a complete one
// (isComplete) straight into result, as the legacy era does, any other
// kept for callWithInput to read. A complete result is thus neither copied
// nor scanned a third time. Its decoding error is kept, not returned, for
// callWithInput to report as before.
type round struct {
	result   any
	complete bool
	err      error           // of decoding a complete result
	raw      json.RawMessage // a result that is not complete, a copy
}

// UnmarshalJSON implements json.Unmarshaler. The transport hands it the
// result as json.RawMessage.UnmarshalJSON would get it: valid JSON without
// white space around it.
func (r *round) UnmarshalJSON(b []byte) error {
	if isComplete(b) {
		r.complete, r.err = true, decodeValid(b, r.result)
		return nil
	}
	r.raw = append(json.RawMessage(nil), b...)
	return nil
}

// isComplete reports, without decoding it, that raw (a result, valid JSON)
// is not an InputRequiredResult or CreateTaskResult: it has a "resultType"
// that is a plain string other than "input_required" and "task", or none, and no member that the
// head decoded in callWithInput would read otherwise (a name in another
// case, "inputRequests", "requestState", which may fail to decode). False
// means that callWithInput must decode the head.
func isComplete(raw []byte) bool {
	complete, seen := true, false
	err := jsonscan.MembersBytes(raw, func(k, v []byte) bool {
		switch {
		case string(k) == "resultType" && !seen && len(v) >= 2 && v[0] == '"' && bytes.IndexByte(v, '\\') < 0:
			seen = true
			complete = string(v) != `"`+mcp.ResultInputRequired+`"` && string(v) != `"`+mcp.ResultTask+`"`
		case bytes.EqualFold(k, []byte("resultType")) || bytes.EqualFold(k, []byte("inputRequests")) || bytes.EqualFold(k, []byte("requestState")):
			complete = false
			return false
		}
		return true
	})
	return err == nil && complete
}

// decodeValid decodes raw, which is valid JSON without white space around
// it, into v as json.Unmarshal does, but hands it to a json.Unmarshaler
// directly: json.Unmarshal would scan it twice more, to check it and to
// find where it ends, before passing it on whole.
func decodeValid(raw []byte, v any) error {
	if u, ok := v.(json.Unmarshaler); ok {
		return u.UnmarshalJSON(raw)
	}
	return json.Unmarshal(raw, v)
}

// toolName is the tool a tools/call names.
func toolName(params any) string {
	switch p := params.(type) {
	case *toolCall:
		return p.Name
	case *mcp.CallToolParams:
		return p.Name
	}
	return ""
}
