package mcp

import "encoding/json"

// ClientCapabilities are what a client offers the server. A nil member
// means the capability is absent.
type ClientCapabilities struct {
	Roots        *RootsCapability          `json:"roots,omitempty"`
	Sampling     *SamplingCapability       `json:"sampling,omitempty"`
	Elicitation  *ElicitationCapability    `json:"elicitation,omitempty"`
	Experimental map[string]map[string]any `json:"experimental,omitzero"`
	Extensions   map[string]map[string]any `json:"extensions,omitzero"`
	Tasks        map[string]any            `json:"tasks,omitzero"`
}

// RootsCapability says a client can list roots.
type RootsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// SamplingCapability says a client can sample its model.
type SamplingCapability struct {
	Context map[string]any `json:"context,omitzero"`
	Tools   map[string]any `json:"tools,omitzero"`
}

// ElicitationCapability says a client can ask its user for input.
type ElicitationCapability struct {
	Form *struct{} `json:"form,omitempty"`
	URL  *struct{} `json:"url,omitempty"`
}

// ServerCapabilities are what a server offers.
type ServerCapabilities struct {
	Tools        *ToolsCapability          `json:"tools,omitempty"`
	Resources    *ResourcesCapability      `json:"resources,omitempty"`
	Prompts      *PromptsCapability        `json:"prompts,omitempty"`
	Logging      *struct{}                 `json:"logging,omitempty"`
	Completions  *struct{}                 `json:"completions,omitempty"`
	Experimental map[string]map[string]any `json:"experimental,omitzero"`
	Extensions   map[string]map[string]any `json:"extensions,omitzero"`
	Tasks        map[string]any            `json:"tasks,omitzero"`
}

// ToolsCapability says a server has tools.
type ToolsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourcesCapability says a server has resources.
type ResourcesCapability struct {
	Subscribe   bool `json:"subscribe,omitempty"`
	ListChanged bool `json:"listChanged,omitempty"`
}

// PromptsCapability says a server has prompts.
type PromptsCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// InitializeParams open a session in the legacy era.
type InitializeParams struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ClientCapabilities `json:"capabilities"`
	ClientInfo      Implementation     `json:"clientInfo"`
	Meta            Meta               `json:"_meta,omitzero"`
}

// InitializeResult answers initialize.
type InitializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ServerCapabilities `json:"capabilities"`
	ServerInfo      Implementation     `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
	Meta            Meta               `json:"_meta,omitzero"`
}

// DiscoverResult answers server/discover (2026-07-28).
type DiscoverResult struct {
	SupportedVersions []string           `json:"supportedVersions"`
	Capabilities      ServerCapabilities `json:"capabilities"`
	Instructions      string             `json:"instructions,omitempty"`
	CacheHint
	ResultEnvelope
}

// MarshalJSON implements json.Marshaler; supportedVersions is never null.
func (r *DiscoverResult) MarshalJSON() ([]byte, error) {
	type plain DiscoverResult
	cp := *r
	cp.SupportedVersions = nonNil(cp.SupportedVersions)
	return json.Marshal((*plain)(&cp))
}

// CacheHint tells a 2026-07-28 client how long it may reuse a result.
type CacheHint struct {
	TTLMs      *int64 `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"` // "private" or "public"
}

// ResultEnvelope holds the members every result may carry: resultType
// ("complete", or "input_required" in 2026-07-28; empty in legacy
// revisions) and _meta.
type ResultEnvelope struct {
	ResultType string `json:"resultType,omitempty"`
	Meta       Meta   `json:"_meta,omitzero"`
}

// Result types of the 2026-07-28 revision.
const (
	ResultComplete      = "complete"
	ResultInputRequired = "input_required"
)

// RequestParams are the params of a request that has no others (ping,
// server/discover); they carry _meta only.
type RequestParams struct {
	Meta Meta `json:"_meta,omitzero"`
}

// PaginatedParams are the params of a list request.
type PaginatedParams struct {
	Cursor string `json:"cursor,omitempty"`
	Meta   Meta   `json:"_meta,omitzero"`
}

// CancelledParams are the params of notifications/cancelled.
type CancelledParams struct {
	RequestID json.RawMessage `json:"requestId,omitempty"` // optional in 2025-11-25 only
	Reason    string          `json:"reason,omitempty"`
	Meta      Meta            `json:"_meta,omitzero"`
}

// ProgressParams are the params of notifications/progress.
type ProgressParams struct {
	ProgressToken any      `json:"progressToken"`
	Progress      float64  `json:"progress"`
	Total         *float64 `json:"total,omitempty"`
	Message       string   `json:"message,omitempty"`
	Meta          Meta     `json:"_meta,omitzero"`
}

// LoggingMessageParams are the params of notifications/message.
type LoggingMessageParams struct {
	Level  LoggingLevel `json:"level"`
	Logger string       `json:"logger,omitempty"`
	Data   any          `json:"data"`
	Meta   Meta         `json:"_meta,omitzero"`
}

// SetLevelParams are the params of logging/setLevel (legacy era).
type SetLevelParams struct {
	Level LoggingLevel `json:"level"`
	Meta  Meta         `json:"_meta,omitzero"`
}
