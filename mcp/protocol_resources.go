package mcp

import "encoding/json"

// Resource describes a resource a server offers.
type Resource struct {
	URI         string       `json:"uri"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"` // 2025-06-18
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Size        *int64       `json:"size,omitempty"` // 2025-03-26
	Icons       []Icon       `json:"icons,omitzero"` // 2025-11-25
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitzero"` // 2025-06-18
}

// ResourceTemplate describes a family of resources by a URI template
// (RFC 6570).
type ResourceTemplate struct {
	URITemplate string       `json:"uriTemplate"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"` // 2025-06-18
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Icons       []Icon       `json:"icons,omitzero"` // 2025-11-25
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitzero"` // 2025-06-18
}

// ListResourcesResult answers resources/list.
type ListResourcesResult struct {
	Resources  []*Resource `json:"resources"`
	NextCursor string      `json:"nextCursor,omitempty"`
	CacheHint
	ResultEnvelope
}

// MarshalJSON implements json.Marshaler; resources is never null.
func (r *ListResourcesResult) MarshalJSON() ([]byte, error) {
	type plain ListResourcesResult
	cp := *r
	cp.Resources = nonNil(cp.Resources)
	return json.Marshal((*plain)(&cp))
}

// ListResourceTemplatesResult answers resources/templates/list.
type ListResourceTemplatesResult struct {
	ResourceTemplates []*ResourceTemplate `json:"resourceTemplates"`
	NextCursor        string              `json:"nextCursor,omitempty"`
	CacheHint
	ResultEnvelope
}

// MarshalJSON implements json.Marshaler; resourceTemplates is never null.
func (r *ListResourceTemplatesResult) MarshalJSON() ([]byte, error) {
	type plain ListResourceTemplatesResult
	cp := *r
	cp.ResourceTemplates = nonNil(cp.ResourceTemplates)
	return json.Marshal((*plain)(&cp))
}

// ReadResourceParams are the params of resources/read.
type ReadResourceParams struct {
	URI string `json:"uri"`
	// InputResponses and RequestState carry a retried multi round-trip
	// request (2026-07-28).
	InputResponses InputResponses `json:"inputResponses,omitzero"`
	RequestState   string         `json:"requestState,omitempty"`
	Meta           Meta           `json:"_meta,omitzero"`
}

// ReadResourceResult answers resources/read.
type ReadResourceResult struct {
	Contents []*ResourceContents `json:"contents"`
	CacheHint
	ResultEnvelope
}

// MarshalJSON implements json.Marshaler; contents is never null.
func (r *ReadResourceResult) MarshalJSON() ([]byte, error) {
	type plain ReadResourceResult
	cp := *r
	cp.Contents = nonNil(cp.Contents)
	return json.Marshal((*plain)(&cp))
}

// SubscribeParams are the params of resources/subscribe (legacy era; in
// 2026-07-28 clients use subscriptions/listen).
type SubscribeParams struct {
	URI  string `json:"uri"`
	Meta Meta   `json:"_meta,omitzero"`
}

// UnsubscribeParams are the params of resources/unsubscribe (legacy era).
type UnsubscribeParams struct {
	URI  string `json:"uri"`
	Meta Meta   `json:"_meta,omitzero"`
}

// ResourceUpdatedParams are the params of notifications/resources/updated.
type ResourceUpdatedParams struct {
	URI  string `json:"uri"`
	Meta Meta   `json:"_meta,omitzero"`
}

// NotificationParams are the params of a notification that has no others:
// notifications/initialized and the list_changed notifications. In
// 2026-07-28 their _meta names the subscription (MetaSubscriptionID).
type NotificationParams struct {
	Meta Meta `json:"_meta,omitzero"`
}

// nonNil returns s, or an empty slice when s is nil, for array members the
// schema requires (encoding/json writes a nil slice as null).
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
