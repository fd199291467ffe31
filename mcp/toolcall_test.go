package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/winbridge/winbridge/transport"
)

// checkCallToolParams decodes params with decodeCallToolParams and with
// decodeParams, the reference, and fails unless both give the same: the
// same params, and the protocol's _meta entries taken out of the Meta
// exactly as a decoded map holds them.
func checkCallToolParams(t *testing.T, params []byte) {
	if !transportDelivers(params) {
		return
	}
	r := &transport.Request{Method: "tools/call", Params: params}
	var want, got CallToolParams
	wantErr := decodeParams(r, &want)
	pm, gotErr := decodeCallToolParams(r, &got)
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("%q: error %v, want %v", params, gotErr, wantErr)
	}
	if wantErr != nil {
		if !strings.Contains(gotErr.Error(), "invalid params for tools/call") {
			t.Fatalf("%q: error %v", params, gotErr)
		}
		return
	}
	checkProtoMeta(t, params, &want.Meta, &pm)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%q: (-want +got)\n%s", params, diff)
	}
}

// checkProtoMeta takes the protocol's entries out of *want, a _meta decoded
// whole, and fails unless they are what pm holds; an empty rest is nil, as
// decodeRequest leaves it.
func checkProtoMeta(t *testing.T, params []byte, want *Meta, pm *protoMeta) {
	t.Helper()
	m := *want
	v, has := m[MetaProtocolVersion]
	if has != pm.hasVersion {
		t.Fatalf("%q: version there %v, want %v", params, pm.hasVersion, has)
	}
	if s, ok := v.(string); ok != pm.isString {
		t.Fatalf("%q: version a string %v, want %v", params, pm.isString, ok)
	} else if ok {
		if pm.version != s || pm.otherVersion != nil {
			t.Fatalf("%q: version %q %v, want %q", params, pm.version, pm.otherVersion, s)
		}
	} else if has && (pm.version != "" || !cmp.Equal(pm.otherVersion, v)) {
		t.Fatalf("%q: version %q %v, want %v", params, pm.version, pm.otherVersion, v)
	}
	if l, _ := m[MetaLogLevel].(string); l != pm.logLevel {
		t.Fatalf("%q: log level %q, want %q", params, pm.logLevel, l)
	}
	for _, e := range []struct {
		key string
		raw []byte
	}{{MetaClientInfo, pm.info}, {MetaClientCapabilities, pm.caps}} {
		v, has := m[e.key]
		if has != (e.raw != nil) {
			t.Fatalf("%q: %s there %v, want %v", params, e.key, e.raw != nil, has)
		}
		if has && !cmp.Equal(decodeValue(e.raw), v) {
			t.Fatalf("%q: %s %s, want %v", params, e.key, e.raw, v)
		}
	}
	for _, k := range []string{MetaProtocolVersion, MetaLogLevel, MetaClientInfo, MetaClientCapabilities} {
		delete(m, k)
	}
	if len(m) == 0 {
		*want = nil
	}
}

var callToolParamsSeeds = []string{
	`{"name":"echo","arguments":{"text":"hi"}}`,
	`{"name":"echo"}`,
	`{"arguments":{"a":[1,{"b":"}"}]},"name":"x","_meta":{"progressToken":7}}`,
	`{"name":"x","arguments":null}`,
	`{"name":"x","arguments":"s"}`,
	`{"name":"x","Arguments":{"a":1}}`,
	`{"name":"x","arguments":{"a":1},"ARGUMENTS":{"b":2}}`,
	`{"name":"x","argument\u0073":{"a":1}}`,
	"{\"name\":\"x\",\"argument\u017f\":{\"a\":1}}",
	`{"name":5,"arguments":{"a":1}}`,
	`{"name":"x","arguments":{"a":1},"_meta":[]}`,
	`{"name":"x","arguments":{"a":1},"requestState":"st","inputResponses":{"k":{"action":"accept"}}}`,
	`{"name":"x","arguments":{"a":1},"inputResponses":5}`,
	`[1,2]`, `"s"`, `{}`, ` { "name" : "x" , "arguments" : { } } `,
	`{"name":"x","arguments":{"a":1}`,
	`{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/logLevel":"info","progressToken":"p"}}`,
	`{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":7,"io.modelcontextprotocol/logLevel":["debug"],"io.modelcontextprotocol/clientInfo":null}}`,
	`{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"a","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontext\u0070rotocol/logLevel":"d\u0065bug"}}`,
	`{"name":"x","_meta":{"progressToken":1},"_META":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
	`{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"_meta":null}`,
	`{"name":"x","_meta":"s"}`, `{"name":"x","_meta":null}`, `{"name":"x","_meta":{}}`,
	`{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":null}}`,
	`{"name":"x","_meta":5,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
	`{"name":"x","_META":"s","arguments":[],"ARGUMENTS":{},"_meta":{}}`,
	`{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":null}}`,
}

func TestDecodeCallToolParams(t *testing.T) {
	for _, s := range callToolParamsSeeds {
		checkCallToolParams(t, []byte(s))
	}
	// The arguments are not copied: they alias the request.
	params := []byte(`{"name":"x","arguments":{"text":"hi"}}`)
	var p CallToolParams
	if _, err := decodeCallToolParams(&transport.Request{Method: "tools/call", Params: params}, &p); err != nil {
		t.Fatal(err)
	}
	if &p.Arguments[0] != &params[len(`{"name":"x","arguments":`)] {
		t.Error("the arguments were copied")
	}
}

func FuzzDecodeCallToolParams(f *testing.F) {
	for _, s := range callToolParamsSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) { checkCallToolParams(t, params) })
}

// argCheckSchemas are input schemas of the kinds tools have: inferred from
// Go types, and written by hand, some beyond what argCheck handles.
var argCheckSchemas = []string{
	`{"type":"object"}`,
	`{"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"text":{"type":"string"}},"additionalProperties":false,"type":"object","required":["text"]}`,
	`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"number"},"c":{"type":"boolean"},"d":{"type":["string","null"]}},"required":["a"]}`,
	`{"type":"object","properties":{"list":{"type":"array","items":{"type":"object","properties":{"x":{"type":"integer"}},"additionalProperties":false,"required":["x"]}}}}`,
	`{"type":"object","additionalProperties":{"type":"string"}}`,
	`{"type":"object","properties":{"any":{},"t":{"description":"d","title":"t","default":1,"examples":[1],"format":"date-time","type":"string"}}}`,
	`{"type":"object","additionalProperties":{"not":{},"type":"string"}}`,
	`{"type":"object","properties":{"s":{"type":"string","minLength":2}}}`,
	`{"type":"object","properties":{"e":{"enum":["a","b"]}}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}}}`,
	`{"$schema":"https://example.com/unknown","type":"object"}`,
}

// argCheckInstances are arguments to try against every schema.
var argCheckInstances = []string{
	``, `null`, `{}`, `{"text":"hi"}`, `{"text":5}`, `{"text":null}`, `{"text":"a","extra":1}`,
	`{"text":"a","text":"b"}`, `{"text":"a","text":5}`, `{"a":1}`, `{"a":1.5}`, `{"a":1e400}`, `{"x":-0}`,
	`{"a":1.0,"b":2,"c":true,"d":null}`, `{"a":1,"d":"s"}`, `{"a":"1"}`, `{"list":[{"x":1},{"x":2}]}`,
	`{"list":[{"x":1},{"y":2}]}`, `{"list":[{"x":1,"x":1}]}`, `{"list":{}}`, `{"k":"v","l":"w"}`, `{"k":1}`,
	`{"any":{"deep":[1e400]}}`, `{"any":[[[{"a":null}]]],"t":"2020-01-01"}`, `{"s":"é"}`, `{"s":"x"}`,
	`{"e":"a"}`, `{"e":"c"}`, `{"a":[1,2]}`, `{"a":[1,"x"]}`, `[]`, `"s"`, `5`, `{"te\u0078t":"a"}`,
	"{\"text\":\"\xff\"}", `{"TEXT":"a"}`, `{"a":12345678901234567890123}`, `{"a":-1e-400}`,
	`{"any":{"a":{"b":[{"c":"1e400"}]}}}`, `{"any":{"a":{"b":[{"c":-1e400}]}}}`, `{"any":{"a":1,"a":{"a":1e999}}}`,
	`{"any":[" 1e400",{"\"":2e308}]}`,
}

// TestArgCheckLinear: the fast path reads arguments under a schema that
// constrains nothing below a level once, however deep they nest. Before,
// each level read all below it again: 4 MiB nested 10000 deep took minutes
// of CPU per call under {"type":"object"}. The bound is hundreds of times
// what linear code takes.
func TestArgCheckLinear(t *testing.T) {
	const size, depth = 4 << 20, 9990
	c := compileArgCheck(&jsonschema.Schema{Type: "object"})
	if c == nil {
		t.Fatal("no fast path for {\"type\":\"object\"}")
	}
	for name, raw := range map[string]string{
		"objects": `{"a":` + strings.Repeat(`{"a":`, depth-1) + `[` + strings.Repeat(`"a",`, (size-6*depth)/4) + `"a"]` + strings.Repeat(`}`, depth),
		"arrays":  `{"a":` + strings.Repeat(`[`, depth) + strings.Repeat(`1,`, (size-2*depth)/2) + `1` + strings.Repeat(`]`, depth) + `}`,
	} {
		start := time.Now()
		if !c.accepts([]byte(raw)) {
			t.Errorf("%s: refused", name)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: %d bytes took %v", name, len(raw), d)
		}
	}
}

// checkArgCheck fails if argCheck accepts args that jsonschema-go, given
// them as tools/call did (decoded into an interface value), rejects.
func checkArgCheck(t *testing.T, schemaJSON string, args []byte) {
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(schemaJSON), &s); err != nil {
		t.Fatalf("%s: %v", schemaJSON, err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: %v", schemaJSON, err)
	}
	c := compileArgCheck(&s)
	if c == nil || !json.Valid(args) && len(args) > 0 {
		return
	}
	if !c.accepts(args) {
		return
	}
	var v any = map[string]any{}
	if len(args) > 0 && string(args) != "null" {
		if err := json.Unmarshal(args, &v); err != nil {
			t.Fatalf("schema %s: accepted %s, which does not decode: %v", schemaJSON, args, err)
		}
	}
	if err := resolved.Validate(v); err != nil {
		t.Fatalf("schema %s: accepted %s, which jsonschema-go rejects: %v", schemaJSON, args, err)
	}
}

func TestArgCheckNeverAcceptsWhatJSONSchemaRejects(t *testing.T) {
	for _, s := range argCheckSchemas {
		for _, a := range argCheckInstances {
			checkArgCheck(t, s, []byte(a))
		}
	}
}

func FuzzArgCheck(f *testing.F) {
	for i := range argCheckSchemas {
		for _, a := range argCheckInstances {
			f.Add(i, []byte(a))
		}
	}
	f.Fuzz(func(t *testing.T, i int, args []byte) {
		if i < 0 {
			i = -i
		}
		checkArgCheck(t, argCheckSchemas[i%len(argCheckSchemas)], args)
	})
}

// TestArgCheckCoversInferredSchemas makes sure the fast path is taken
// where it matters: for schemas inferred from Go types, and valid
// arguments.
func TestArgCheckCoversInferredSchemas(t *testing.T) {
	type inner struct {
		X int `json:"x"`
	}
	type in struct {
		Text  string            `json:"text" jsonschema:"description=some text"`
		N     int               `json:"n,omitempty"`
		F     float64           `json:"f,omitempty"`
		B     *bool             `json:"b,omitempty"`
		List  []inner           `json:"list,omitempty"`
		Map   map[string]string `json:"map,omitempty"`
		Any   any               `json:"any,omitempty"`
		Inner *inner            `json:"inner,omitempty"`
	}
	schema, err := SchemaFor[in]()
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		t.Fatal(err)
	}
	c := compileArgCheck(&s)
	if c == nil {
		t.Fatalf("no fast path for %s", schema)
	}
	args := `{"text":"t","n":3,"f":1.5,"b":true,"list":[{"x":1}],"map":{"k":"v"},"any":[1,{"a":null}],"inner":{"x":2}}`
	if !c.accepts([]byte(args)) {
		t.Errorf("schema %s: rejected %s", schema, args)
	}
	checkArgCheck(t, string(schema), []byte(args))
}

// TestToolValidationErrorsUnchanged calls a tool with invalid arguments of
// every kind and checks that the error is jsonschema-go's, as before the
// fast path.
func TestToolValidationErrorsUnchanged(t *testing.T) {
	ss := benchServerSession(t)
	for _, tc := range []struct{ args, want string }{
		{`{}`, `invalid arguments for tool "echo": validating root: required: missing properties: ["text"]`},
		{`{"text":5}`, `invalid arguments for tool "echo": validating root: validating /properties/text: type: 5 has type "integer", want "string"`},
		{`{"text":"a","b":1}`, `invalid arguments for tool "echo": validating root: unexpected additional properties ["b"]`},
		{`{"text":1e400}`, `invalid arguments: json: cannot unmarshal number 1e400 into Go value of type float64`},
		{`{"text":"ok"}`, ``},
	} {
		params := []byte(`{"name":"echo","arguments":` + tc.args + `}`)
		res, err := ss.dispatch(context.Background(), &transport.Request{ID: transport.IntID(1), Method: "tools/call", Params: params})
		if err != nil {
			t.Fatalf("%s: %v", tc.args, err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		var r CallToolResult
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		if tc.want == "" {
			if r.IsError || r.TextOf() != "ok" {
				t.Errorf("%s: %s", tc.args, b)
			}
			continue
		}
		if !r.IsError || r.TextOf() != tc.want {
			t.Errorf("%s: got %s\nwant error %q", tc.args, b, tc.want)
		}
	}
}

func TestInferredSchemaCompiledOnFirstCall(t *testing.T) {
	srv := NewServer(&Implementation{Name: "s", Version: "1"}, nil)
	AddTool(srv, &Tool{Name: "echo"}, func(ctx context.Context, req *CallToolRequest, in benchEchoIn) (*CallToolResult, any, error) {
		return nil, nil, nil
	})
	st, _ := srv.tools.get("echo")
	if st.input != nil {
		t.Fatal("the schema was compiled at registration")
	}
	if err := st.compile(); err != nil || st.input == nil || st.check == nil {
		t.Fatalf("compile: %v; validator %v, fast path %v", err, st.input != nil, st.check != nil)
	}
	// A schema that is not an object is still refused at registration.
	defer func() {
		if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), `must have type "object", not "string"`) {
			t.Fatalf("panic %v", p)
		}
	}()
	AddTool(srv, &Tool{Name: "bad"}, func(ctx context.Context, req *CallToolRequest, in string) (*CallToolResult, any, error) {
		return nil, nil, nil
	})
}

func TestBindingOf(t *testing.T) {
	// The binding is a hash of method, target and arguments, as before it
	// became lazy: state handed out by an older build stays valid.
	b := bindingOf("tools/call", "echo", json.RawMessage(`{"a":1}`)).key()
	if b != "7Ot8dkVf81tgK16pwQysmQ" {
		t.Errorf("binding = %q", b)
	}
	if bytes.Equal([]byte(b), []byte(bindingOf("tools/call", "echo", json.RawMessage(`{"a":2}`)).key())) {
		t.Error("different arguments, same binding")
	}
}

// transportDelivers reports whether params are what a transport hands a
// handler: valid JSON and valid UTF-8 (transport.Request.Params). Others
// never reach the decoders, which rely on that; the transport's own tests
// cover their refusal.
func transportDelivers(params []byte) bool { return json.Valid(params) && utf8.Valid(params) }
