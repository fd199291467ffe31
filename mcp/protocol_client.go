package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// This file holds the requests a server makes of its client: sampling,
// elicitation and roots. In the legacy era they are JSON-RPC requests from
// server to client; in 2026-07-28 they travel as InputRequests inside an
// InputRequiredResult, and their results come back as InputResponses.

// SamplingMessage is one message of a sampling conversation.
//
// Content holds one block or, from 2025-11-25, several (text, image, audio,
// tool_use, tool_result). On the wire one block is a single object and
// several are an array; both decode into Content, and a Content of one
// block encodes as a single object, the form every revision accepts.
type SamplingMessage struct {
	Role    Role      `json:"role"`
	Content []Content `json:"content"`
	Meta    Meta      `json:"_meta,omitzero"` // 2025-11-25
}

// MarshalJSON implements json.Marshaler.
func (m *SamplingMessage) MarshalJSON() ([]byte, error) {
	type plain SamplingMessage
	var v struct {
		*plain
		Content json.RawMessage `json:"content"`
	}
	v.plain = (*plain)(m)
	var err error
	if v.Content, err = marshalContentOneOrMany(m.Content); err != nil {
		return nil, err
	}
	return json.Marshal(&v)
}

// UnmarshalJSON implements json.Unmarshaler.
func (m *SamplingMessage) UnmarshalJSON(b []byte) error {
	type plain SamplingMessage
	var v struct {
		*plain
		Content json.RawMessage `json:"content"`
	}
	v.plain = (*plain)(m)
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	c, err := decodeContentOneOrMany(v.Content)
	if err != nil {
		return fmt.Errorf("sampling message: %w", err)
	}
	m.Content = c
	return nil
}

// marshalContentOneOrMany encodes one block as an object, any other number
// as an array.
func marshalContentOneOrMany(c []Content) (json.RawMessage, error) {
	if len(c) == 1 {
		return json.Marshal(c[0])
	}
	return json.Marshal(nonNil(c))
}

// decodeContentOneOrMany decodes a content block or an array of them.
func decodeContentOneOrMany(raw json.RawMessage) ([]Content, error) {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return nil, fmt.Errorf(`missing "content"`)
	case raw[0] == '[':
		var l contentList
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, err
		}
		return l, nil
	default:
		c, err := decodeContent(raw)
		if err != nil {
			return nil, err
		}
		return []Content{c}, nil
	}
}

// ModelPreferences are the server's preferences for the model a client
// samples. Priorities range from 0 to 1.
type ModelPreferences struct {
	Hints                []*ModelHint `json:"hints,omitzero"`
	CostPriority         *float64     `json:"costPriority,omitempty"`
	SpeedPriority        *float64     `json:"speedPriority,omitempty"`
	IntelligencePriority *float64     `json:"intelligencePriority,omitempty"`
}

// ModelHint suggests a model by (a part of) its name.
type ModelHint struct {
	Name string `json:"name,omitempty"`
}

// ToolChoice says how the model may use the tools of a sampling request
// (2025-11-25): Mode is "auto", "required" or "none".
type ToolChoice struct {
	Mode string `json:"mode,omitempty"`
}

// CreateMessageParams are the params of sampling/createMessage.
type CreateMessageParams struct {
	Messages         []*SamplingMessage `json:"messages"`
	ModelPreferences *ModelPreferences  `json:"modelPreferences,omitempty"`
	SystemPrompt     string             `json:"systemPrompt,omitempty"`
	// IncludeContext is "none", "thisServer" or "allServers" (the last two
	// deprecated from 2025-11-25).
	IncludeContext string         `json:"includeContext,omitempty"`
	Temperature    *float64       `json:"temperature,omitempty"`
	MaxTokens      int64          `json:"maxTokens"`
	StopSequences  []string       `json:"stopSequences,omitzero"`
	Metadata       map[string]any `json:"metadata,omitzero"`
	Tools          []*Tool        `json:"tools,omitzero"`       // 2025-11-25
	ToolChoice     *ToolChoice    `json:"toolChoice,omitempty"` // 2025-11-25
	Meta           Meta           `json:"_meta,omitzero"`       // not in 2026-07-28
}

// MarshalJSON implements json.Marshaler; messages is never null.
func (p *CreateMessageParams) MarshalJSON() ([]byte, error) {
	type plain CreateMessageParams
	cp := *p
	cp.Messages = nonNil(cp.Messages)
	return json.Marshal((*plain)(&cp))
}

// CreateMessageResult is the client's answer to sampling/createMessage.
// Content is one block or several, as in SamplingMessage.
type CreateMessageResult struct {
	Role       Role      `json:"role"`
	Content    []Content `json:"content"`
	Model      string    `json:"model"`
	StopReason string    `json:"stopReason,omitempty"` // "endTurn", "stopSequence", "maxTokens", "toolUse", ...
	ResultEnvelope
}

// MarshalJSON implements json.Marshaler.
func (r *CreateMessageResult) MarshalJSON() ([]byte, error) {
	type plain CreateMessageResult
	var v struct {
		*plain
		Content json.RawMessage `json:"content"`
	}
	v.plain = (*plain)(r)
	var err error
	if v.Content, err = marshalContentOneOrMany(r.Content); err != nil {
		return nil, err
	}
	return json.Marshal(&v)
}

// UnmarshalJSON implements json.Unmarshaler.
func (r *CreateMessageResult) UnmarshalJSON(b []byte) error {
	type plain CreateMessageResult
	var v struct {
		*plain
		Content json.RawMessage `json:"content"`
	}
	v.plain = (*plain)(r)
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	c, err := decodeContentOneOrMany(v.Content)
	if err != nil {
		return fmt.Errorf("createMessage result: %w", err)
	}
	r.Content = c
	return nil
}

// Elicitation modes.
const (
	ElicitModeForm = "form"
	ElicitModeURL  = "url"
)

// ElicitParams are the params of elicitation/create, in form mode
// (Message and RequestedSchema; Mode "form" or, as before 2025-11-25,
// empty) or URL mode (Mode "url", Message and URL; 2025-11-25).
type ElicitParams struct {
	Mode            string             `json:"mode,omitempty"` // 2025-11-25
	Message         string             `json:"message"`
	RequestedSchema *ElicitationSchema `json:"requestedSchema,omitempty"`
	URL             string             `json:"url,omitempty"`
	// ElicitationID identifies a URL-mode elicitation; 2025-11-25 requires
	// it, 2026-07-28 no longer has it.
	ElicitationID string `json:"elicitationId,omitempty"`
	Meta          Meta   `json:"_meta,omitzero"` // not in 2026-07-28
}

// ElicitationSchema is the restricted JSON Schema of a form elicitation:
// an object whose properties are primitive schemas.
type ElicitationSchema struct {
	Schema     string                                `json:"$schema,omitempty"` // 2025-11-25
	Type       string                                `json:"type"`              // always "object"
	Properties map[string]*PrimitiveSchemaDefinition `json:"properties"`
	Required   []string                              `json:"required,omitzero"`
}

// MarshalJSON implements json.Marshaler; type defaults to "object" and
// properties is never null.
func (s *ElicitationSchema) MarshalJSON() ([]byte, error) {
	type plain ElicitationSchema
	cp := *s
	if cp.Type == "" {
		cp.Type = "object"
	}
	if cp.Properties == nil {
		cp.Properties = map[string]*PrimitiveSchemaDefinition{}
	}
	return json.Marshal((*plain)(&cp))
}

// PrimitiveSchemaDefinition is the schema of one elicited field: a string
// (StringSchema), number or integer (NumberSchema), boolean
// (BooleanSchema), or an enum: single-select (type "string" with Enum, or
// OneOf for titled options, or the legacy Enum with EnumNames) or
// multi-select (type "array" with Items; 2025-11-25). One struct holds the
// members of every variant; set those of the variant meant.
type PrimitiveSchemaDefinition struct {
	Type        string `json:"type"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Default is the default value: a string, number, bool or, for a
	// multi-select, []string (2025-11-25; booleans from 2025-06-18).
	Default   any          `json:"default,omitempty"`
	Format    string       `json:"format,omitempty"` // "email", "uri", "date", "date-time"
	MinLength *int64       `json:"minLength,omitempty"`
	MaxLength *int64       `json:"maxLength,omitempty"`
	Minimum   *float64     `json:"minimum,omitempty"`
	Maximum   *float64     `json:"maximum,omitempty"`
	Enum      []string     `json:"enum,omitzero"`
	EnumNames []string     `json:"enumNames,omitzero"` // legacy titled enum
	OneOf     []EnumOption `json:"oneOf,omitzero"`     // titled single-select
	Items     *EnumItems   `json:"items,omitempty"`    // multi-select
	MinItems  *int64       `json:"minItems,omitempty"`
	MaxItems  *int64       `json:"maxItems,omitempty"`
}

// StringSchema, NumberSchema, BooleanSchema and the enum schemas of the
// specification are all PrimitiveSchemaDefinition.
type (
	StringSchema                   = PrimitiveSchemaDefinition
	NumberSchema                   = PrimitiveSchemaDefinition
	BooleanSchema                  = PrimitiveSchemaDefinition
	UntitledSingleSelectEnumSchema = PrimitiveSchemaDefinition
	TitledSingleSelectEnumSchema   = PrimitiveSchemaDefinition
	UntitledMultiSelectEnumSchema  = PrimitiveSchemaDefinition
	TitledMultiSelectEnumSchema    = PrimitiveSchemaDefinition
	LegacyTitledEnumSchema         = PrimitiveSchemaDefinition
)

// EnumOption is a titled enum value.
type EnumOption struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// EnumItems are the items of a multi-select enum: Type "string" with Enum,
// or AnyOf for titled options.
type EnumItems struct {
	Type  string       `json:"type,omitempty"`
	Enum  []string     `json:"enum,omitzero"`
	AnyOf []EnumOption `json:"anyOf,omitzero"`
}

// Elicitation actions.
const (
	ElicitActionAccept  = "accept"
	ElicitActionDecline = "decline"
	ElicitActionCancel  = "cancel"
)

// ElicitResult is the client's answer to elicitation/create.
type ElicitResult struct {
	Action string `json:"action"`
	// Content holds the submitted values (action "accept", form mode):
	// strings, numbers, booleans, or []string for multi-selects.
	Content map[string]any `json:"content,omitzero"`
	ResultEnvelope
}

// ElicitationCompleteParams are the params of
// notifications/elicitation/complete (2025-11-25 only).
type ElicitationCompleteParams struct {
	ElicitationID string `json:"elicitationId"`
	Meta          Meta   `json:"_meta,omitzero"`
}

// Root is a directory or file the client lets the server work in.
type Root struct {
	URI  string `json:"uri"` // a file:// URI
	Name string `json:"name,omitempty"`
	Meta Meta   `json:"_meta,omitzero"` // 2025-06-18
}

// ListRootsResult is the client's answer to roots/list.
type ListRootsResult struct {
	Roots []*Root `json:"roots"`
	ResultEnvelope
}

// MarshalJSON implements json.Marshaler; roots is never null.
func (r *ListRootsResult) MarshalJSON() ([]byte, error) {
	type plain ListRootsResult
	cp := *r
	cp.Roots = nonNil(cp.Roots)
	return json.Marshal((*plain)(&cp))
}
