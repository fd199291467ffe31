package mcp

import (
	"encoding/json"
)

// Tool describes a tool a server offers.
type Tool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Icons        []Icon           `json:"icons,omitzero"`
	Execution    *ToolExecution   `json:"execution,omitempty"`
	Meta         Meta             `json:"_meta,omitzero"`
}

// ToolAnnotations are hints about a tool's behaviour. They are hints, not
// guarantees: a client must not trust them from an untrusted server.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// Ptr returns a pointer to v, for the optional members of protocol types.
func Ptr[T any](v T) *T { return &v }

// ListToolsResult answers tools/list.
type ListToolsResult struct {
	Tools      []*Tool `json:"tools"`
	NextCursor string  `json:"nextCursor,omitempty"`
	CacheHint
	ResultEnvelope
}

// MarshalJSON implements json.Marshaler; tools is never null.
func (r *ListToolsResult) MarshalJSON() ([]byte, error) {
	type plain ListToolsResult
	cp := *r
	cp.Tools = nonNil(cp.Tools)
	return json.Marshal((*plain)(&cp))
}

// CallToolParams are the params of tools/call.
type CallToolParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// InputResponses and RequestState carry a retried multi round-trip
	// request (2026-07-28).
	InputResponses InputResponses `json:"inputResponses,omitzero"`
	RequestState   string         `json:"requestState,omitempty"`
	// Task asks for the call to run as a task (2025-11-25); the
	// 2026-07-28 extension has the server decide instead.
	Task *TaskMetadata `json:"task,omitempty"`
	Meta Meta          `json:"_meta,omitzero"`
}

// CallToolResult is the outcome of a tool call. IsError marks a failure of
// the tool itself (as opposed to a protocol error), which the model sees.
type CallToolResult struct {
	Content           []Content `json:"content"`
	StructuredContent any       `json:"structuredContent,omitempty"`
	IsError           bool      `json:"isError,omitempty"`
	// IsErrorSet makes a false IsError encode as "isError": false instead
	// of being left out. Decoding sets it when the member is present, so
	// that a decoded result encodes unchanged; senders need not set it.
	IsErrorSet bool `json:"-"`
	ResultEnvelope
}

// MarshalJSON implements json.Marshaler; content is never null.
func (r *CallToolResult) MarshalJSON() ([]byte, error) { return json.Marshal(r.wire()) }

// UnmarshalJSON implements json.Unmarshaler.
func (r *CallToolResult) UnmarshalJSON(b []byte) error {
	// The fast path decodes into a fresh interface value only; one the
	// caller put there (a pointer to decode structured content into) is
	// encoding/json's to fill.
	if r.StructuredContent == nil && r.decodeFast(b) {
		return nil
	}
	return r.unmarshalSlow(b)
}

// unmarshalSlow is UnmarshalJSON with encoding/json alone: the reference
// for decodeFast, and the decoder of what it leaves.
func (r *CallToolResult) unmarshalSlow(b []byte) error {
	type plain CallToolResult
	var v struct {
		*plain
		Content contentList `json:"content"`
		IsError *bool       `json:"isError"`
	}
	v.plain = (*plain)(r)
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	r.Content = v.Content
	r.IsError = v.IsError != nil && *v.IsError
	r.IsErrorSet = v.IsError != nil
	return nil
}

// TextOf returns the concatenated text of a result's text blocks.
func (r *CallToolResult) TextOf() string {
	var s string
	for _, c := range r.Content {
		if t, ok := c.(*TextContent); ok {
			s += t.Text
		}
	}
	return s
}
