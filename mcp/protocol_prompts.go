package mcp

import (
	"encoding/json"
	"fmt"
)

// Prompt describes a prompt template a server offers.
type Prompt struct {
	Name        string            `json:"name"`
	Title       string            `json:"title,omitempty"` // 2025-06-18
	Description string            `json:"description,omitempty"`
	Arguments   []*PromptArgument `json:"arguments,omitzero"`
	Icons       []Icon            `json:"icons,omitzero"` // 2025-11-25
	Meta        Meta              `json:"_meta,omitzero"` // 2025-06-18
}

// PromptArgument describes an argument a prompt template accepts.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"` // 2025-06-18
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// PromptMessage is one message of a prompt. Content is a content block
// (*TextContent, *ImageContent, *AudioContent, *ResourceLink,
// *EmbeddedResource, or *UnknownContent).
type PromptMessage struct {
	Role    Role    `json:"role"`
	Content Content `json:"content"`
}

// UnmarshalJSON implements json.Unmarshaler.
func (m *PromptMessage) UnmarshalJSON(b []byte) error {
	var v struct {
		Role    Role            `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if len(v.Content) == 0 || string(v.Content) == "null" {
		return fmt.Errorf(`prompt message without "content"`)
	}
	c, err := decodeContent(v.Content)
	if err != nil {
		return fmt.Errorf("prompt message: %w", err)
	}
	m.Role, m.Content = v.Role, c
	return nil
}

// ListPromptsResult answers prompts/list.
type ListPromptsResult struct {
	Prompts    []*Prompt `json:"prompts"`
	NextCursor string    `json:"nextCursor,omitempty"`
	CacheHint
	ResultEnvelope
}

// MarshalJSON implements json.Marshaler; prompts is never null.
func (r *ListPromptsResult) MarshalJSON() ([]byte, error) {
	type plain ListPromptsResult
	cp := *r
	cp.Prompts = nonNil(cp.Prompts)
	return json.Marshal((*plain)(&cp))
}

// GetPromptParams are the params of prompts/get.
type GetPromptParams struct {
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments,omitzero"`
	// InputResponses and RequestState carry a retried multi round-trip
	// request (2026-07-28).
	InputResponses InputResponses `json:"inputResponses,omitzero"`
	RequestState   string         `json:"requestState,omitempty"`
	Meta           Meta           `json:"_meta,omitzero"`
}

// GetPromptResult answers prompts/get.
type GetPromptResult struct {
	Description string           `json:"description,omitempty"`
	Messages    []*PromptMessage `json:"messages"`
	ResultEnvelope
}

// MarshalJSON implements json.Marshaler; messages is never null.
func (r *GetPromptResult) MarshalJSON() ([]byte, error) {
	type plain GetPromptResult
	cp := *r
	cp.Messages = nonNil(cp.Messages)
	return json.Marshal((*plain)(&cp))
}

// CompleteParams are the params of completion/complete.
type CompleteParams struct {
	// Ref is what is being completed: *PromptReference or
	// *ResourceTemplateReference (*UnknownReference for other types).
	Ref      Reference        `json:"ref"`
	Argument CompleteArgument `json:"argument"`
	Context  *CompleteContext `json:"context,omitempty"` // 2025-06-18
	Meta     Meta             `json:"_meta,omitzero"`
}

// UnmarshalJSON implements json.Unmarshaler.
func (p *CompleteParams) UnmarshalJSON(b []byte) error {
	type plain CompleteParams
	var v struct {
		*plain
		Ref json.RawMessage `json:"ref"`
	}
	v.plain = (*plain)(p)
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if len(v.Ref) == 0 || string(v.Ref) == "null" {
		return fmt.Errorf(`completion request without "ref"`)
	}
	r, err := decodeReference(v.Ref)
	if err != nil {
		return err
	}
	p.Ref = r
	return nil
}

// CompleteArgument is the argument being completed and its value so far.
type CompleteArgument struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CompleteContext holds the values of arguments already resolved.
type CompleteContext struct {
	Arguments map[string]string `json:"arguments,omitzero"`
}

// CompleteResult answers completion/complete.
type CompleteResult struct {
	Completion Completion `json:"completion"`
	ResultEnvelope
}

// Completion is a list of completion values.
type Completion struct {
	Values  []string `json:"values"` // at most 100
	Total   *int64   `json:"total,omitempty"`
	HasMore *bool    `json:"hasMore,omitempty"`
}

// MarshalJSON implements json.Marshaler; values is never null.
func (c Completion) MarshalJSON() ([]byte, error) {
	type plain Completion
	c.Values = nonNil(c.Values)
	return json.Marshal(plain(c))
}

// Reference is the target of a completion: *PromptReference,
// *ResourceTemplateReference, or *UnknownReference.
type Reference interface {
	referenceType() string
}

// PromptReference names a prompt ("ref/prompt").
type PromptReference struct {
	Name  string `json:"name"`
	Title string `json:"title,omitempty"` // 2025-06-18
}

// ResourceTemplateReference names a resource template by its URI template
// ("ref/resource"; called ResourceReference before 2025-06-18).
type ResourceTemplateReference struct {
	URI string `json:"uri"`
}

// ResourceReference is the name of ResourceTemplateReference in 2024-11-05
// and 2025-03-26.
type ResourceReference = ResourceTemplateReference

// UnknownReference is a reference of a type this package does not know,
// kept as received.
type UnknownReference struct {
	Type string
	Raw  json.RawMessage
}

func (*PromptReference) referenceType() string           { return "ref/prompt" }
func (*ResourceTemplateReference) referenceType() string { return "ref/resource" }
func (r *UnknownReference) referenceType() string        { return r.Type }

// MarshalJSON implements json.Marshaler.
func (r *PromptReference) MarshalJSON() ([]byte, error) {
	type plain PromptReference
	return marshalTyped("ref/prompt", (*plain)(r))
}

// MarshalJSON implements json.Marshaler.
func (r *ResourceTemplateReference) MarshalJSON() ([]byte, error) {
	type plain ResourceTemplateReference
	return marshalTyped("ref/resource", (*plain)(r))
}

// MarshalJSON implements json.Marshaler.
func (r *UnknownReference) MarshalJSON() ([]byte, error) { return r.Raw, nil }

func decodeReference(raw json.RawMessage) (Reference, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("ref: %w", err)
	}
	var r Reference
	switch head.Type {
	case "ref/prompt":
		r = new(PromptReference)
	case "ref/resource":
		r = new(ResourceTemplateReference)
	case "":
		return nil, fmt.Errorf(`ref without "type"`)
	default:
		return &UnknownReference{Type: head.Type, Raw: append(json.RawMessage(nil), raw...)}, nil
	}
	if err := json.Unmarshal(raw, r); err != nil {
		return nil, fmt.Errorf("%s ref: %w", head.Type, err)
	}
	return r, nil
}
