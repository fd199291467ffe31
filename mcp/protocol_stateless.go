package mcp

import (
	"encoding/json"
	"fmt"
)

// This file holds what only the 2026-07-28 revision has: multi round-trip
// requests and subscriptions.

// InputRequiredResult answers a request (tools/call, prompts/get,
// resources/read) that needs input from the client first: the client
// fulfils InputRequests and retries the request with the answers in
// inputResponses, under the same keys, and RequestState echoed unchanged.
type InputRequiredResult struct {
	InputRequests InputRequests `json:"inputRequests,omitzero"`
	RequestState  string        `json:"requestState,omitempty"`
	ResultEnvelope
}

// MarshalJSON implements json.Marshaler; an empty ResultType encodes as
// "input_required".
func (r *InputRequiredResult) MarshalJSON() ([]byte, error) {
	type plain InputRequiredResult
	cp := *r
	if cp.ResultType == "" {
		cp.ResultType = ResultInputRequired
	}
	return json.Marshal((*plain)(&cp))
}

// InputRequests are the requests of an InputRequiredResult, by a key the
// server chooses.
type InputRequests map[string]*InputRequest

// InputRequest is a request the server needs the client to fulfil:
// sampling/createMessage (Params *CreateMessageParams), elicitation/create
// (*ElicitParams) or roots/list (*RequestParams, or nil). Params of another
// method decode as json.RawMessage.
type InputRequest struct {
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

// UnmarshalJSON implements json.Unmarshaler.
func (r *InputRequest) UnmarshalJSON(b []byte) error {
	var v struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	if v.Method == "" {
		return fmt.Errorf(`input request without "method"`)
	}
	r.Method, r.Params = v.Method, nil
	if len(v.Params) == 0 || string(v.Params) == "null" {
		return nil
	}
	var p any
	switch v.Method {
	case "sampling/createMessage":
		p = new(CreateMessageParams)
	case "elicitation/create":
		p = new(ElicitParams)
	case "roots/list":
		p = new(RequestParams)
	default:
		r.Params = append(json.RawMessage(nil), v.Params...)
		return nil
	}
	if err := json.Unmarshal(v.Params, p); err != nil {
		return fmt.Errorf("%s input request: %w", v.Method, err)
	}
	r.Params = p
	return nil
}

// CreateMessageInput returns an InputRequest for sampling/createMessage.
func CreateMessageInput(p *CreateMessageParams) *InputRequest {
	return &InputRequest{Method: "sampling/createMessage", Params: p}
}

// ElicitInput returns an InputRequest for elicitation/create.
func ElicitInput(p *ElicitParams) *InputRequest {
	return &InputRequest{Method: "elicitation/create", Params: p}
}

// ListRootsInput returns an InputRequest for roots/list.
func ListRootsInput() *InputRequest { return &InputRequest{Method: "roots/list"} }

// InputResponses are the client's answers to InputRequests, under the same
// keys: a *CreateMessageResult, *ElicitResult or *ListRootsResult each.
// The answers are not tagged with their kind, so they are kept raw; the
// server, which knows what it asked under each key, decodes them with
// Decode or its typed helpers.
type InputResponses map[string]json.RawMessage

// Decode decodes the response under key into v, reporting whether there
// was one.
func (r InputResponses) Decode(key string, v any) (bool, error) {
	raw, ok := r[key]
	if !ok {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return true, fmt.Errorf("input response %q: %w", key, err)
	}
	return true, nil
}

// CreateMessage returns the sampling result under key, or nil.
func (r InputResponses) CreateMessage(key string) (*CreateMessageResult, error) {
	return decodeInputResponse[CreateMessageResult](r, key)
}

// Elicit returns the elicitation result under key, or nil.
func (r InputResponses) Elicit(key string) (*ElicitResult, error) {
	return decodeInputResponse[ElicitResult](r, key)
}

// ListRoots returns the roots result under key, or nil.
func (r InputResponses) ListRoots(key string) (*ListRootsResult, error) {
	return decodeInputResponse[ListRootsResult](r, key)
}

// Set encodes v, a result, as the response under key.
func (r InputResponses) Set(key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	r[key] = b
	return nil
}

func decodeInputResponse[T any](r InputResponses, key string) (*T, error) {
	v := new(T)
	ok, err := r.Decode(key, v)
	if !ok || err != nil {
		return nil, err
	}
	return v, nil
}

// SubscriptionFilter selects the notifications a subscriptions/listen
// stream carries; the server's acknowledgement says which it honours.
type SubscriptionFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitzero"` // resource URIs
}

// SubscriptionsListenParams are the params of subscriptions/listen.
type SubscriptionsListenParams struct {
	Notifications SubscriptionFilter `json:"notifications"`
	Meta          Meta               `json:"_meta,omitzero"`
}

// SubscriptionsListenResult ends a subscriptions/listen stream. Its _meta
// must hold MetaSubscriptionID, the id of the listen request.
type SubscriptionsListenResult struct {
	ResultEnvelope
}

// SubscriptionsAcknowledgedParams are the params of
// notifications/subscriptions/acknowledged, the first message of a
// subscriptions/listen stream.
type SubscriptionsAcknowledgedParams struct {
	Notifications SubscriptionFilter `json:"notifications"`
	Meta          Meta               `json:"_meta,omitzero"`
}
