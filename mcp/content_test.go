package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestContentRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		json string
		want Content
	}{
		{`{"type":"text","text":"hi"}`, &TextContent{Text: "hi"}},
		{`{"type":"text","text":"","annotations":{"audience":["user"],"priority":0.5,"lastModified":"2025-01-01T00:00:00Z"},"_meta":{"n":12345678901234567890}}`,
			&TextContent{Annotations: &Annotations{Audience: []Role{RoleUser}, Priority: Ptr(0.5), LastModified: "2025-01-01T00:00:00Z"}, Meta: Meta{"n": json.Number("12345678901234567890")}}},
		{`{"type":"text","text":"x","_meta":{}}`, &TextContent{Text: "x", Meta: Meta{}}},
		{`{"type":"image","data":"AA==","mimeType":"image/png"}`, &ImageContent{Data: "AA==", MIMEType: "image/png"}},
		{`{"type":"audio","data":"AA==","mimeType":"audio/wav"}`, &AudioContent{Data: "AA==", MIMEType: "audio/wav"}},
		{`{"type":"resource_link","uri":"file:///a","name":"a","size":0,"icons":[]}`, &ResourceLink{URI: "file:///a", Name: "a", Size: Ptr(int64(0)), Icons: []Icon{}}},
		{`{"type":"resource","resource":{"uri":"file:///a","text":""}}`, &EmbeddedResource{Resource: &ResourceContents{URI: "file:///a", Text: Ptr("")}}},
		{`{"type":"resource","resource":{"uri":"file:///a","blob":"AA==","mimeType":"x/y"}}`, &EmbeddedResource{Resource: &ResourceContents{URI: "file:///a", Blob: Ptr("AA=="), MIMEType: "x/y"}}},
		{`{"type":"tool_use","id":"1","name":"f","input":{}}`, &ToolUseContent{ID: "1", Name: "f", Input: map[string]any{}}},
		{`{"type":"tool_result","toolUseId":"1","content":[]}`, &ToolResultContent{ToolUseID: "1", Content: []Content{}}},
	} {
		c, err := decodeContent(json.RawMessage(tc.json))
		if err != nil {
			t.Errorf("decoding %s: %v", tc.json, err)
			continue
		}
		if diff := cmp.Diff(tc.want, c); diff != "" {
			t.Errorf("decoding %s (-want +got):\n%s", tc.json, diff)
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Errorf("encoding %T: %v", c, err)
			continue
		}
		if diff := diffJSONValues([]byte(tc.json), b); diff != "" {
			t.Errorf("round trip of %s (-want +got):\n%s", tc.json, diff)
		}
		if !strings.HasPrefix(string(b), `{"type":"`) {
			t.Errorf("%s: type is not the first member", b)
		}
	}
}

func TestContentUnknownTypePreserved(t *testing.T) {
	in := `{"type":"hologram","frames":[1,2,3],"_meta":{"x":true}}`
	c, err := decodeContent(json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	u, ok := c.(*UnknownContent)
	if !ok || u.Type != "hologram" {
		t.Fatalf("got %#v, want *UnknownContent of type hologram", c)
	}
	// Inside a result too, byte for byte.
	res := `{"content":[{"type":"text","text":"a"},` + in + `]}`
	var r CallToolResult
	if err := json.Unmarshal([]byte(res), &r); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(&r)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(in)) {
		t.Errorf("unknown block changed: %s", b)
	}
	if diff := diffJSONValues([]byte(res), b); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestContentMissingTypeRejected(t *testing.T) {
	for _, in := range []string{
		`{"text":"hi"}`,
		`{"type":"","text":"hi"}`,
		`{"type":null,"text":"hi"}`,
	} {
		if c, err := decodeContent(json.RawMessage(in)); err == nil {
			t.Errorf("decodeContent(%s) = %#v, want an error", in, c)
		}
	}
	for _, in := range []string{`null`, `[]`, `"text"`, `{"type":1}`, `{"type":"text","text":5}`, `{`} {
		if c, err := decodeContent(json.RawMessage(in)); err == nil {
			t.Errorf("decodeContent(%s) = %#v, want an error", in, c)
		}
	}
	var r CallToolResult
	if err := json.Unmarshal([]byte(`{"content":[{"type":"text","text":"a"},{"text":"b"}]}`), &r); err == nil || !strings.Contains(err.Error(), "content[1]") {
		t.Errorf("a result with an untyped block: err = %v, want one naming content[1]", err)
	}
	var m PromptMessage
	if err := json.Unmarshal([]byte(`{"role":"user","content":{"text":"b"}}`), &m); err == nil {
		t.Error("a prompt message with an untyped block decoded")
	}
	if err := json.Unmarshal([]byte(`{"role":"user"}`), &m); err == nil {
		t.Error("a prompt message without content decoded")
	}
}

func TestToolResultContentNested(t *testing.T) {
	in := `{"type":"tool_result","toolUseId":"call_1","content":[` +
		`{"type":"text","text":"a"},` +
		`{"type":"image","data":"AA==","mimeType":"image/png"},` +
		`{"type":"resource","resource":{"uri":"file:///x","text":"t"}},` +
		`{"type":"resource_link","uri":"file:///y","name":"y"},` +
		`{"type":"future","z":1}],` +
		`"structuredContent":{"k":[1,"2"]},"isError":false,"_meta":{"m":1}}`
	c, err := decodeContent(json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	tr, ok := c.(*ToolResultContent)
	if !ok {
		t.Fatalf("got %T", c)
	}
	var types []string
	for _, b := range tr.Content {
		types = append(types, reflect.TypeOf(b).Elem().Name())
	}
	if want := []string{"TextContent", "ImageContent", "EmbeddedResource", "ResourceLink", "UnknownContent"}; !reflect.DeepEqual(types, want) {
		t.Errorf("nested types %v, want %v", types, want)
	}
	if tr.IsError == nil || *tr.IsError {
		t.Errorf("isError = %v, want explicit false", tr.IsError)
	}
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	if diff := diffJSONValues([]byte(in), b); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// An invalid nested block is an error, with its place.
	bad := `{"type":"tool_result","toolUseId":"c","content":[{"type":"text","text":"a"},{"nope":1}]}`
	if _, err := decodeContent(json.RawMessage(bad)); err == nil || !strings.Contains(err.Error(), "content[1]") {
		t.Errorf("err = %v, want one naming content[1]", err)
	}
	// Empty nested content encodes as [], as the schema requires.
	b, _ = json.Marshal(&ToolResultContent{ToolUseID: "c"})
	if !bytes.Contains(b, []byte(`"content":[]`)) {
		t.Errorf("empty tool result: %s", b)
	}
	b, _ = json.Marshal(&ToolUseContent{ID: "c", Name: "f"})
	if !bytes.Contains(b, []byte(`"input":{}`)) {
		t.Errorf("tool use without input: %s", b)
	}
}

func TestSamplingContentOneOrMany(t *testing.T) {
	single := `{"role":"user","content":{"type":"text","text":"a"}}`
	many := `{"role":"assistant","content":[{"type":"tool_use","id":"1","name":"f","input":{"a":1}},{"type":"text","text":"b"}]}`
	for _, in := range []string{single, many} {
		var m SamplingMessage
		if err := json.Unmarshal([]byte(in), &m); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		b, err := json.Marshal(&m)
		if err != nil {
			t.Fatal(err)
		}
		if diff := diffJSONValues([]byte(in), b); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
	// One block in an array is the same message; it encodes in the form
	// every revision accepts.
	var m SamplingMessage
	if err := json.Unmarshal([]byte(`{"role":"user","content":[{"type":"text","text":"a"}]}`), &m); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(&m); diffJSONValues([]byte(single), b) != "" {
		t.Errorf("one-block array re-encoded as %s", b)
	}
	for _, in := range []string{`{"role":"user"}`, `{"role":"user","content":null}`, `{"role":"user","content":[{"text":"x"}]}`} {
		if err := json.Unmarshal([]byte(in), &m); err == nil {
			t.Errorf("%s decoded", in)
		}
	}
	var r CreateMessageResult
	if err := json.Unmarshal([]byte(`{"role":"assistant","model":"m","content":[{"type":"tool_use","id":"1","name":"f","input":{}},{"type":"tool_use","id":"2","name":"f","input":{}}],"_meta":{"a":1}}`), &r); err != nil || len(r.Content) != 2 || r.Meta == nil {
		t.Errorf("CreateMessageResult: %+v, %v", r, err)
	}
}

func TestReferenceUnion(t *testing.T) {
	for _, in := range []string{
		`{"ref":{"type":"ref/prompt","name":"p","title":"P"},"argument":{"name":"a","value":""}}`,
		`{"ref":{"type":"ref/resource","uri":"file:///{x}"},"argument":{"name":"x","value":"a"},"context":{"arguments":{"y":"1"}}}`,
		`{"ref":{"type":"ref/tool","name":"t","extra":[1]},"argument":{"name":"a","value":"b"}}`,
	} {
		var p CompleteParams
		if err := json.Unmarshal([]byte(in), &p); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		b, _ := json.Marshal(&p)
		if diff := diffJSONValues([]byte(in), b); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
	var p CompleteParams
	if err := json.Unmarshal([]byte(`{"ref":{"name":"p"},"argument":{"name":"a","value":""}}`), &p); err == nil {
		t.Error("a ref without type decoded")
	}
}

func TestInputRequestUnion(t *testing.T) {
	in := `{"a":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}},` +
		`"b":{"method":"roots/list"},` +
		`"c":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}},` +
		`"d":{"method":"tasks/get","params":{"taskId":"t","n":[1]}}}`
	var r InputRequests
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	if _, ok := r["a"].Params.(*ElicitParams); !ok {
		t.Errorf("a: %T", r["a"].Params)
	}
	if r["b"].Params != nil {
		t.Errorf("b: %T", r["b"].Params)
	}
	if _, ok := r["c"].Params.(*CreateMessageParams); !ok {
		t.Errorf("c: %T", r["c"].Params)
	}
	if _, ok := r["d"].Params.(json.RawMessage); !ok {
		t.Errorf("d: %T", r["d"].Params)
	}
	b, _ := json.Marshal(r)
	if diff := diffJSONValues([]byte(in), b); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := json.Unmarshal([]byte(`{"x":{"params":{}}}`), &r); err == nil {
		t.Error("an input request without method decoded")
	}
	// The typed helpers of InputResponses.
	resp := InputResponses{}
	if err := resp.Set("e", &ElicitResult{Action: ElicitActionAccept, Content: map[string]any{"n": "x"}}); err != nil {
		t.Fatal(err)
	}
	e, err := resp.Elicit("e")
	if err != nil || e.Action != ElicitActionAccept || e.Content["n"] != "x" {
		t.Errorf("Elicit: %+v, %v", e, err)
	}
	if e, err := resp.Elicit("missing"); e != nil || err != nil {
		t.Errorf("Elicit(missing) = %v, %v", e, err)
	}
	if _, err := resp.ListRoots("e"); err != nil {
		t.Errorf("ListRoots of an elicit result: %v (decoding is by key, not checked)", err)
	}
	resp["bad"] = json.RawMessage(`{"roots":5}`)
	if _, err := resp.ListRoots("bad"); err == nil {
		t.Error("ListRoots(bad) decoded")
	}
	b, _ = json.Marshal(&InputRequiredResult{RequestState: "s"})
	if !bytes.Contains(b, []byte(`"resultType":"input_required"`)) {
		t.Errorf("InputRequiredResult without ResultType: %s", b)
	}
}

// TestRequiredArraysNeverNull: nil slices of required array members encode
// as [], as the schemas require.
func TestRequiredArraysNeverNull(t *testing.T) {
	for _, v := range []any{
		&CallToolResult{}, &ListToolsResult{}, &ListResourcesResult{}, &ListResourceTemplatesResult{},
		&ReadResourceResult{}, &ListPromptsResult{}, &GetPromptResult{}, &CompleteResult{}, &ListRootsResult{},
		&DiscoverResult{}, &CreateMessageParams{}, &ElicitationSchema{},
	} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		if bytes.Contains(b, []byte("null")) {
			t.Errorf("%T encodes as %s", v, b)
		}
	}
}

func TestCallToolResultIsError(t *testing.T) {
	for _, tc := range []struct {
		in       string
		isError  bool
		set      bool
		wantJSON string
	}{
		{`{"content":[]}`, false, false, `{"content":[]}`},
		{`{"content":[],"isError":false}`, false, true, `{"content":[],"isError":false}`},
		{`{"content":[],"isError":true}`, true, true, `{"content":[],"isError":true}`},
	} {
		var r CallToolResult
		r.IsError = true // decoding replaces what was there
		if err := json.Unmarshal([]byte(tc.in), &r); err != nil {
			t.Fatal(err)
		}
		if r.IsError != tc.isError || r.IsErrorSet != tc.set {
			t.Errorf("%s: IsError=%v IsErrorSet=%v", tc.in, r.IsError, r.IsErrorSet)
		}
		b, _ := json.Marshal(&r)
		if string(b) != tc.wantJSON {
			t.Errorf("%s re-encoded as %s", tc.in, b)
		}
	}
	b, _ := json.Marshal(&CallToolResult{IsError: true})
	if string(b) != `{"content":[],"isError":true}` {
		t.Errorf("got %s", b)
	}
}

// TestToolResultDepth: each tool_result level was decoded on its own,
// and encoding/json read the whole text below it again: a sampling
// request of 10 MB of tool_results nested 2000 deep took minutes of CPU
// to decode. A tool_result block nested deeper than MaxToolResultDepth
// is refused, at once, in a sampling message and a tool result alike.
func TestToolResultDepth(t *testing.T) {
	nested := func(levels, pad int) string {
		p := strings.Repeat("x", pad)
		return strings.Repeat(`{"type":"tool_result","toolUseId":"u","_meta":{"k":"`+p+`"},"content":[`, levels) +
			`{"type":"text","text":"x"}` + strings.Repeat(`]}`, levels)
	}
	for _, tc := range []struct {
		levels int
		ok     bool
	}{{31, true}, {32, false}} { // 2*levels+1 deep
		var p CreateMessageParams
		err := json.Unmarshal([]byte(`{"messages":[{"role":"user","content":`+nested(tc.levels, 0)+`}],"maxTokens":1}`), &p)
		if (err == nil) != tc.ok {
			t.Errorf("sampling, %d levels: %v, want ok %v", tc.levels, err, tc.ok)
		}
		var r CallToolResult
		err = json.Unmarshal([]byte(`{"content":[`+nested(tc.levels, 0)+`]}`), &r)
		if (err == nil) != tc.ok {
			t.Errorf("tool result, %d levels: %v, want ok %v", tc.levels, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "deeper than 64 levels") {
			t.Errorf("refused with %q, which does not say why", err)
		}
	}
	big := []byte(`{"messages":[{"role":"user","content":` + nested(2000, 5000) + `}],"maxTokens":1}`)
	start := time.Now()
	var p CreateMessageParams
	if err := json.Unmarshal(big, &p); err == nil {
		t.Fatal("10 MB of nested tool_results decoded")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("refusing 10 MB of nested tool_results took %v", d)
	}
}
