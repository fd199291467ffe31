package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// exampleCodec says how to decode an example of a 2026-07-28 type: part is
// the member of a JSON-RPC message that holds the modelled value ("params",
// "result", "error"; "" for the whole file), and newValue returns what to
// decode it into.
type exampleCodec struct {
	part     string
	newValue func(raw json.RawMessage) any
}

func newOf[T any]() func(json.RawMessage) any { return func(json.RawMessage) any { return new(T) } }

// exampleBlock decodes a content block through decodeContent, like every
// content member, and wants type T.
type exampleBlock[T any] struct{ c Content }

func (b *exampleBlock[T]) UnmarshalJSON(raw []byte) error {
	c, err := decodeContent(raw)
	b.c = c
	return err
}

func (b *exampleBlock[T]) MarshalJSON() ([]byte, error) { return json.Marshal(b.c) }

// typeOK reports whether the block decoded as the wanted type.
func (b *exampleBlock[T]) typeOK() bool { _, ok := b.c.(T); return ok }

// resultOrInputRequired picks the result type by resultType, as a client
// reading a response to a multi round-trip request does.
func resultOrInputRequired[T any]() func(json.RawMessage) any {
	return func(raw json.RawMessage) any {
		var head struct {
			ResultType string `json:"resultType"`
		}
		_ = json.Unmarshal(raw, &head)
		if head.ResultType == ResultInputRequired {
			return new(InputRequiredResult)
		}
		return new(T)
	}
}

// exampleCodecs maps every example directory to the Go type that models it.
// A directory missing here fails TestExamples.
var exampleCodecs = map[string]exampleCodec{
	"AudioContent":                          {"", newOf[exampleBlock[*AudioContent]]()},
	"BlobResourceContents":                  {"", newOf[ResourceContents]()},
	"BooleanSchema":                         {"", newOf[BooleanSchema]()},
	"CallToolRequest":                       {"params", newOf[CallToolParams]()},
	"CallToolRequestParams":                 {"", newOf[CallToolParams]()},
	"CallToolResult":                        {"", newOf[CallToolResult]()},
	"CallToolResultResponse":                {"result", resultOrInputRequired[CallToolResult]()},
	"CancelledNotification":                 {"params", newOf[CancelledParams]()},
	"CancelledNotificationParams":           {"", newOf[CancelledParams]()},
	"ClientCapabilities":                    {"", newOf[ClientCapabilities]()},
	"CompleteRequest":                       {"params", newOf[CompleteParams]()},
	"CompleteRequestParams":                 {"", newOf[CompleteParams]()},
	"CompleteResult":                        {"", newOf[CompleteResult]()},
	"CompleteResultResponse":                {"result", newOf[CompleteResult]()},
	"CreateMessageRequest":                  {"params", newOf[CreateMessageParams]()},
	"CreateMessageRequestParams":            {"", newOf[CreateMessageParams]()},
	"CreateMessageResult":                   {"", newOf[CreateMessageResult]()},
	"DiscoverRequest":                       {"params", newOf[RequestParams]()},
	"DiscoverResult":                        {"", newOf[DiscoverResult]()},
	"DiscoverResultResponse":                {"result", newOf[DiscoverResult]()},
	"ElicitRequest":                         {"params", newOf[ElicitParams]()},
	"ElicitRequestFormParams":               {"", newOf[ElicitParams]()},
	"ElicitRequestURLParams":                {"", newOf[ElicitParams]()},
	"ElicitResult":                          {"", newOf[ElicitResult]()},
	"EmbeddedResource":                      {"", newOf[exampleBlock[*EmbeddedResource]]()},
	"GetPromptRequest":                      {"params", newOf[GetPromptParams]()},
	"GetPromptRequestParams":                {"", newOf[GetPromptParams]()},
	"GetPromptResult":                       {"", newOf[GetPromptResult]()},
	"GetPromptResultResponse":               {"result", resultOrInputRequired[GetPromptResult]()},
	"HeaderMismatchError":                   {"error", newOf[Error]()},
	"ImageContent":                          {"", newOf[exampleBlock[*ImageContent]]()},
	"InputRequests":                         {"", newOf[InputRequests]()},
	"InputRequiredResult":                   {"", newOf[InputRequiredResult]()},
	"InputResponses":                        {"", newOf[InputResponses]()},
	"InternalError":                         {"", newOf[Error]()},
	"InvalidParamsError":                    {"", newOf[Error]()},
	"ListPromptsRequest":                    {"params", newOf[PaginatedParams]()},
	"ListPromptsResult":                     {"", newOf[ListPromptsResult]()},
	"ListPromptsResultResponse":             {"result", newOf[ListPromptsResult]()},
	"ListResourceTemplatesRequest":          {"params", newOf[PaginatedParams]()},
	"ListResourceTemplatesResult":           {"", newOf[ListResourceTemplatesResult]()},
	"ListResourceTemplatesResultResponse":   {"result", newOf[ListResourceTemplatesResult]()},
	"ListResourcesRequest":                  {"params", newOf[PaginatedParams]()},
	"ListResourcesResult":                   {"", newOf[ListResourcesResult]()},
	"ListResourcesResultResponse":           {"result", newOf[ListResourcesResult]()},
	"ListRootsRequest":                      {"params", newOf[RequestParams]()},
	"ListRootsResult":                       {"", newOf[ListRootsResult]()},
	"ListToolsRequest":                      {"params", newOf[PaginatedParams]()},
	"ListToolsResult":                       {"", newOf[ListToolsResult]()},
	"ListToolsResultResponse":               {"result", newOf[ListToolsResult]()},
	"LoggingMessageNotification":            {"params", newOf[LoggingMessageParams]()},
	"LoggingMessageNotificationParams":      {"", newOf[LoggingMessageParams]()},
	"MethodNotFoundError":                   {"", newOf[Error]()},
	"MissingRequiredClientCapabilityError":  {"error", newOf[Error]()},
	"ModelPreferences":                      {"", newOf[ModelPreferences]()},
	"NumberSchema":                          {"", newOf[NumberSchema]()},
	"PaginatedRequestParams":                {"", newOf[PaginatedParams]()},
	"ParseError":                            {"", newOf[Error]()},
	"ProgressNotification":                  {"params", newOf[ProgressParams]()},
	"ProgressNotificationParams":            {"", newOf[ProgressParams]()},
	"PromptListChangedNotification":         {"params", newOf[NotificationParams]()},
	"ReadResourceRequest":                   {"params", newOf[ReadResourceParams]()},
	"ReadResourceResult":                    {"", newOf[ReadResourceResult]()},
	"ReadResourceResultResponse":            {"result", resultOrInputRequired[ReadResourceResult]()},
	"Resource":                              {"", newOf[Resource]()},
	"ResourceLink":                          {"", newOf[exampleBlock[*ResourceLink]]()},
	"ResourceListChangedNotification":       {"params", newOf[NotificationParams]()},
	"ResourceUpdatedNotification":           {"params", newOf[ResourceUpdatedParams]()},
	"ResourceUpdatedNotificationParams":     {"", newOf[ResourceUpdatedParams]()},
	"Root":                                  {"", newOf[Root]()},
	"SamplingMessage":                       {"", newOf[SamplingMessage]()},
	"ServerCapabilities":                    {"", newOf[ServerCapabilities]()},
	"StringSchema":                          {"", newOf[StringSchema]()},
	"SubscriptionsAcknowledgedNotification": {"params", newOf[SubscriptionsAcknowledgedParams]()},
	"SubscriptionsListenRequest":            {"params", newOf[SubscriptionsListenParams]()},
	"SubscriptionsListenResult":             {"", newOf[SubscriptionsListenResult]()},
	"SubscriptionsListenResultResponse":     {"result", newOf[SubscriptionsListenResult]()},
	"TextContent":                           {"", newOf[exampleBlock[*TextContent]]()},
	"TextResourceContents":                  {"", newOf[ResourceContents]()},
	"TitledMultiSelectEnumSchema":           {"", newOf[TitledMultiSelectEnumSchema]()},
	"TitledSingleSelectEnumSchema":          {"", newOf[TitledSingleSelectEnumSchema]()},
	"Tool":                                  {"", newOf[Tool]()},
	"ToolListChangedNotification":           {"params", newOf[NotificationParams]()},
	"ToolResultContent":                     {"", newOf[exampleBlock[*ToolResultContent]]()},
	"ToolUseContent":                        {"", newOf[exampleBlock[*ToolUseContent]]()},
	"UnsupportedProtocolVersionError":       {"error", newOf[Error]()},
	"UntitledMultiSelectEnumSchema":         {"", newOf[UntitledMultiSelectEnumSchema]()},
	"UntitledSingleSelectEnumSchema":        {"", newOf[UntitledSingleSelectEnumSchema]()},
}

// TestExamples decodes every official 2026-07-28 example into its Go type,
// encodes it again, and requires the same JSON value back: the types lose
// nothing. The re-encoding must also still satisfy the schema definition
// the example illustrates.
func TestExamples(t *testing.T) {
	dir := filepath.Join(peerSchemaDir, Version20260728, "examples")
	requirePeers(t, dir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := schemaFor(t, Version20260728)
	seen := map[string]bool{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		name := e.Name()
		seen[name] = true
		codec, ok := exampleCodecs[name]
		if !ok {
			t.Errorf("example directory %s is not mapped to a Go type in exampleCodecs", name)
			continue
		}
		files, err := filepath.Glob(filepath.Join(dir, name, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Errorf("example directory %s holds no .json file", name)
		}
		for _, f := range files {
			t.Run(name+"/"+strings.TrimSuffix(filepath.Base(f), ".json"), func(t *testing.T) {
				orig, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				got, v := roundTripExample(t, codec, orig)
				checkDecodedType(t, name, v)
				if diff := diffJSONValues(orig, got); diff != "" {
					t.Errorf("re-encoding %s lost or changed something (-example +re-encoded):\n%s\nre-encoded: %s", filepath.Base(f), diff, got)
				}
				if s.has(name) {
					if err := s.validate(name, json.RawMessage(got), false); err != nil {
						t.Errorf("the re-encoded example no longer satisfies %s:\n%v", name, err)
					}
				}
			})
		}
	}
	var missing []string
	for name := range exampleCodecs {
		if !seen[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Logf("mapped example directories not found (removed upstream?): %v", missing)
	}
}

// roundTripExample decodes the modelled part of an example and returns the
// example with that part re-encoded.
func roundTripExample(t *testing.T, codec exampleCodec, orig []byte) ([]byte, any) {
	t.Helper()
	part := json.RawMessage(orig)
	var msg map[string]json.RawMessage
	if codec.part != "" {
		if err := json.Unmarshal(orig, &msg); err != nil {
			t.Fatalf("decoding the message: %v", err)
		}
		p, ok := msg[codec.part]
		if !ok {
			// E.g. roots/list has no params: nothing to model.
			return orig, nil
		}
		part = p
	}
	v := codec.newValue(part)
	if err := json.Unmarshal(part, v); err != nil {
		t.Fatalf("decoding into %T: %v", v, err)
	}
	enc, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encoding %T: %v", v, err)
	}
	if codec.part == "" {
		return enc, v
	}
	msg[codec.part] = enc
	out, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	return out, v
}

// checkDecodedType makes sure that unions decoded into their modelled
// types rather than into a raw fallback, which would round-trip trivially.
func checkDecodedType(t *testing.T, name string, v any) {
	t.Helper()
	switch v := v.(type) {
	case interface{ typeOK() bool }:
		if !v.typeOK() {
			t.Errorf("%s decoded as %T", name, reflect.ValueOf(v).Elem().Field(0).Interface())
		}
	case *InputRequests:
		for k, r := range *v {
			if _, raw := r.Params.(json.RawMessage); raw || r.Params == nil && r.Method != "roots/list" {
				t.Errorf("input request %q (%s) has params of type %T", k, r.Method, r.Params)
			}
		}
	case *InputRequiredResult:
		checkDecodedType(t, name, &v.InputRequests)
	case *InputResponses:
		// Untagged: decode each by what it is, as a server knows it, and
		// require that typed decoding loses nothing either.
		for k, raw := range *v {
			var probe map[string]any
			_ = json.Unmarshal(raw, &probe)
			var typed any
			switch {
			case probe["action"] != nil:
				typed = new(ElicitResult)
			case probe["roots"] != nil:
				typed = new(ListRootsResult)
			default:
				typed = new(CreateMessageResult)
			}
			if err := json.Unmarshal(raw, typed); err != nil {
				t.Errorf("input response %q as %T: %v", k, typed, err)
				continue
			}
			enc, _ := json.Marshal(typed)
			if diff := diffJSONValues(raw, enc); diff != "" {
				t.Errorf("input response %q as %T (-example +re-encoded):\n%s", k, typed, diff)
			}
		}
	}
}

// diffJSON compares two JSON texts as values.
func diffJSONValues(a, b []byte) string {
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		return "first is not JSON: " + err.Error()
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		return "second is not JSON: " + err.Error()
	}
	return cmp.Diff(va, vb)
}
