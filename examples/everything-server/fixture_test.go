package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// The tests drive the fixture in-process, over transport.Pipe, in both
// protocol eras, and assert what the conformance scenarios check.

var eras = []string{mcp.Version20251125, mcp.Version20260728}

// recorder is a client that answers what the server asks like the
// conformance suite's client does, and remembers what it was asked.
type recorder struct {
	mu      sync.Mutex
	elicits []*mcp.ElicitParams
	samples []*mcp.CreateMessageParams
	roots   int
	logs    []*mcp.LoggingMessageParams
	changed int
}

func (r *recorder) options() client.Options {
	return client.Options{
		OnSampling: func(_ context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			r.mu.Lock()
			r.samples = append(r.samples, p)
			r.mu.Unlock()
			return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "test-model", StopReason: "endTurn",
				Content: []mcp.Content{&mcp.TextContent{Text: "This is a test response from the client"}}}, nil
		},
		OnElicitation: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			r.mu.Lock()
			r.elicits = append(r.elicits, p)
			r.mu.Unlock()
			answers := map[string]any{"name": "Alice", "color": "blue", "ok": true, "context": "test context",
				"value": "v", "username": "testuser", "email": "test@example.com"}
			content := map[string]any{}
			if p.RequestedSchema != nil {
				for k := range p.RequestedSchema.Properties {
					if v, ok := answers[k]; ok {
						content[k] = v
					}
				}
			}
			return &mcp.ElicitResult{Action: mcp.ElicitActionAccept, Content: content}, nil
		},
		OnRoots: func(context.Context) (*mcp.ListRootsResult, error) {
			r.mu.Lock()
			r.roots++
			r.mu.Unlock()
			return &mcp.ListRootsResult{Roots: []*mcp.Root{{URI: "file:///test/root", Name: "Test Root"}}}, nil
		},
		OnLog: func(p *mcp.LoggingMessageParams) {
			r.mu.Lock()
			r.logs = append(r.logs, p)
			r.mu.Unlock()
		},
		OnToolsChanged: func() {
			r.mu.Lock()
			r.changed++
			r.mu.Unlock()
		},
	}
}

// connect serves a fresh fixture on a pipe and connects a client to it in
// revision version.
func connect(t *testing.T, version string, opts client.Options) *client.Client {
	t.Helper()
	srv := newServer()
	a, b := transport.Pipe(nil)
	ss := srv.Connect(a)
	opts.ProtocolVersion = version
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Second
	}
	c, err := client.Connect(context.Background(), b, &opts)
	if err != nil {
		t.Fatalf("connect %s: %v", version, err)
	}
	t.Cleanup(func() {
		c.Close()
		<-ss.Done()
	})
	if c.ProtocolVersion() != version {
		t.Fatalf("protocol version %q, want %q", c.ProtocolVersion(), version)
	}
	return c
}

func forEachEra(t *testing.T, f func(t *testing.T, version string)) {
	for _, v := range eras {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			f(t, v)
		})
	}
}

func call(t *testing.T, c *client.Client, name string, args any, opts ...client.CallOption) *mcp.CallToolResult {
	t.Helper()
	res, err := c.CallTool(context.Background(), name, args, opts...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

// TestToolsList: tools-list (names, descriptions, schemas) and
// json-schema-2020-12 (keywords preserved).
func TestToolsList(t *testing.T) {
	forEachEra(t, func(t *testing.T, v string) {
		c := connect(t, v, client.Options{})
		tools, err := c.ListTools(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		nameFormat := regexp.MustCompile(`^[A-Za-z0-9_./-]{1,64}$`)
		var names []string
		for _, tool := range tools {
			names = append(names, tool.Name)
			if !nameFormat.MatchString(tool.Name) || tool.Description == "" || len(tool.InputSchema) == 0 {
				t.Errorf("tool %+v: needs a valid name, a description and an input schema", tool)
			}
		}
		for _, want := range []string{
			"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
			"test_multiple_content_types", "test_tool_with_logging", "test_tool_with_progress", "test_error_handling",
			"test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums",
			"json_schema_2020_12_tool", "test_missing_capability", "test_streaming_elicitation", "test_logging_tool",
			"test_trigger_tool_change", "test_trigger_prompt_change", "test_reconnection", "test_custom_headers",
			"test_input_required_result_elicitation", "test_input_required_result_sampling",
			"test_input_required_result_list_roots", "test_input_required_result_request_state",
			"test_input_required_result_multiple_inputs", "test_input_required_result_multi_round",
			"test_input_required_result_tampered_state", "test_input_required_result_capabilities",
			"echo", "sleep", "test_structured_output",
		} {
			if !slices.Contains(names, want) {
				t.Errorf("tools/list lacks %s", want)
			}
		}
		i := slices.IndexFunc(tools, func(tool *mcp.Tool) bool { return tool.Name == "json_schema_2020_12_tool" })
		var schema map[string]any
		if err := json.Unmarshal(tools[i].InputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		if schema["$schema"] != "https://json-schema.org/draft/2020-12/schema" || schema["additionalProperties"] != false {
			t.Errorf("$schema or additionalProperties lost: %s", tools[i].InputSchema)
		}
		for _, k := range []string{"$defs", "allOf", "if", "then", "else"} {
			if _, ok := schema[k]; !ok {
				t.Errorf("%s lost: %s", k, tools[i].InputSchema)
			}
		}
		if !strings.Contains(string(tools[i].InputSchema), `"$anchor"`) {
			t.Errorf("$anchor lost: %s", tools[i].InputSchema)
		}
		// The schema is enforced: phone or email is required.
		if res := call(t, c, "json_schema_2020_12_tool", map[string]any{"name": "x"}); !res.IsError {
			t.Errorf("json_schema_2020_12_tool accepted arguments its schema forbids: %s", res.TextOf())
		}
		if res := call(t, c, "json_schema_2020_12_tool", map[string]any{"name": "x", "email": "x@example.com"}); res.IsError {
			t.Errorf("json_schema_2020_12_tool: %s", res.TextOf())
		}
	})
}

// TestContentTools: tools-call-simple-text, -image, -audio,
// -embedded-resource, -mixed-content and -error.
func TestContentTools(t *testing.T) {
	forEachEra(t, func(t *testing.T, v string) {
		c := connect(t, v, client.Options{})
		if got := call(t, c, "test_simple_text", nil).TextOf(); got != "This is a simple text response for testing." {
			t.Errorf("test_simple_text: %q", got)
		}
		img, ok := call(t, c, "test_image_content", map[string]any{}).Content[0].(*mcp.ImageContent)
		if !ok || img.Data != redPixelPNG || img.MIMEType != "image/png" {
			t.Errorf("test_image_content: %+v", img)
		}
		audio, ok := call(t, c, "test_audio_content", map[string]any{}).Content[0].(*mcp.AudioContent)
		if !ok || audio.Data == "" || audio.MIMEType != "audio/wav" {
			t.Errorf("test_audio_content: %+v", audio)
		}
		emb, ok := call(t, c, "test_embedded_resource", map[string]any{}).Content[0].(*mcp.EmbeddedResource)
		if !ok || emb.Resource.URI != "test://embedded-resource" || emb.Resource.MIMEType != "text/plain" || emb.Resource.Text == nil {
			t.Errorf("test_embedded_resource: %+v", emb)
		}
		var kinds []string
		for _, b := range call(t, c, "test_multiple_content_types", map[string]any{}).Content {
			kinds = append(kinds, fmt.Sprintf("%T", b))
		}
		if strings.Join(kinds, ",") != "*mcp.TextContent,*mcp.ImageContent,*mcp.EmbeddedResource" {
			t.Errorf("test_multiple_content_types: %v", kinds)
		}
		if res := call(t, c, "test_error_handling", map[string]any{}); !res.IsError || res.TextOf() != "This tool intentionally returns an error for testing" {
			t.Errorf("test_error_handling: %+v", res)
		}
		if got := call(t, c, "test_structured_output", map[string]any{"a": 1.5, "b": 2}).TextOf(); got != `{"sum":3.5}` {
			t.Errorf("test_structured_output: %s", got)
		}
	})
}

// TestProgress: tools-call-with-progress.
func TestProgress(t *testing.T) {
	forEachEra(t, func(t *testing.T, v string) {
		c := connect(t, v, client.Options{})
		var mu sync.Mutex
		var got []float64
		call(t, c, "test_tool_with_progress", map[string]any{}, client.WithProgress(func(p *mcp.ProgressParams) {
			mu.Lock()
			defer mu.Unlock()
			if p.Total == nil || *p.Total != 100 {
				t.Errorf("progress without total 100: %+v", p)
			}
			got = append(got, p.Progress)
		}))
		mu.Lock()
		defer mu.Unlock()
		if !slices.Equal(got, []float64{0, 50, 100}) {
			t.Errorf("progress %v, want 0, 50, 100", got)
		}
	})
}

// TestLogging: tools-call-with-logging (after logging/setLevel, or with
// _meta logLevel) and sep-2575-server-no-log-without-loglevel.
func TestLogging(t *testing.T) {
	forEachEra(t, func(t *testing.T, v string) {
		var r recorder
		opts := r.options()
		opts.LogLevel = mcp.LevelDebug
		c := connect(t, v, opts)
		call(t, c, "test_tool_with_logging", map[string]any{})
		var r2 recorder
		quiet := connect(t, v, r2.options())
		call(t, quiet, "test_logging_tool", map[string]any{})
		call(t, quiet, "test_tool_with_logging", map[string]any{})
		// Notifications and results travel in order on one connection.
		r.mu.Lock()
		defer r.mu.Unlock()
		var msgs []string
		for _, l := range r.logs {
			msgs = append(msgs, fmt.Sprint(l.Data))
			if l.Level != mcp.LevelInfo {
				t.Errorf("log level %s", l.Level)
			}
		}
		if strings.Join(msgs, "|") != "Tool execution started|Tool processing data|Tool execution completed" {
			t.Errorf("logs %q", msgs)
		}
		r2.mu.Lock()
		defer r2.mu.Unlock()
		if len(r2.logs) != 0 {
			t.Errorf("logs without a log level: %+v", r2.logs)
		}
	})
}

// TestResources: resources-list, -read-text, -read-binary,
// -templates-read, -subscribe, -unsubscribe, sep-2164-resource-not-found.
func TestResources(t *testing.T) {
	forEachEra(t, func(t *testing.T, v string) {
		ctx := context.Background()
		c := connect(t, v, client.Options{})
		list, err := c.ListResources(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var uris []string
		for _, r := range list {
			uris = append(uris, r.URI)
			if r.Name == "" || r.Description == "" {
				t.Errorf("resource %+v lacks a name or description", r)
			}
		}
		slices.Sort(uris)
		if !slices.Equal(uris, []string{"skill://conformance-demo/SKILL.md", "skill://conformance-demo/references/GUIDE.md",
			"test://static-binary", "test://static-text", "test://watched-resource"}) {
			t.Errorf("resources %v", uris)
		}
		templates, err := c.ListResourceTemplates(ctx)
		if err != nil || len(templates) != 1 || templates[0].URITemplate != "test://template/{id}/data" {
			t.Errorf("templates %+v %v", templates, err)
		}
		read := func(uri string) *mcp.ResourceContents {
			t.Helper()
			res, err := c.ReadResource(ctx, uri)
			if err != nil || len(res.Contents) != 1 {
				t.Fatalf("read %s: %+v %v", uri, res, err)
			}
			return res.Contents[0]
		}
		if rc := read("test://static-text"); rc.MIMEType != "text/plain" || rc.Text == nil || *rc.Text != "This is the content of the static text resource." {
			t.Errorf("static-text: %+v", rc)
		}
		if rc := read("test://static-binary"); rc.MIMEType != "image/png" || rc.Blob == nil || *rc.Blob != redPixelPNG {
			t.Errorf("static-binary: %+v", rc)
		}
		if rc := read("test://template/123/data"); rc.URI != "test://template/123/data" || rc.Text == nil ||
			*rc.Text != `{"id":"123","templateTest":true,"data":"Data for ID: 123"}` {
			t.Errorf("template: %+v", rc)
		}
		const missing = "test://nonexistent-resource-for-conformance-testing"
		_, err = c.ReadResource(ctx, missing)
		var e *mcp.Error
		want := int64(mcp.CodeResourceNotFound)
		if mcp.IsStateless(v) {
			want = mcp.CodeInvalidParams
		}
		if !errors.As(err, &e) || e.Code != want || !strings.Contains(string(e.Data), missing) {
			t.Errorf("not found: %v, want code %d with data.uri", err, want)
		}
		if !mcp.IsStateless(v) {
			if err := c.Subscribe(ctx, watchedURI); err != nil {
				t.Errorf("subscribe: %v", err)
			}
			if err := c.Unsubscribe(ctx, watchedURI); err != nil {
				t.Errorf("unsubscribe: %v", err)
			}
		}
	})
}

// TestResourceUpdated: the watched resource's subscribers hear of changes.
func TestResourceUpdated(t *testing.T) {
	srv := newServer()
	a, b := transport.Pipe(nil)
	ss := srv.Connect(a)
	updated := make(chan string, 1)
	c, err := client.Connect(context.Background(), b, &client.Options{ProtocolVersion: mcp.Version20251125,
		OnResourceUpdated: func(uri string) { updated <- uri }})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { c.Close(); <-ss.Done() }()
	if err := c.Subscribe(context.Background(), watchedURI); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go watch(ctx, srv, 10*time.Millisecond)
	select {
	case uri := <-updated:
		if uri != watchedURI {
			t.Errorf("updated %s", uri)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no notifications/resources/updated")
	}
}

// TestPrompts: prompts-list, prompts-get-* and completion-complete.
func TestPrompts(t *testing.T) {
	forEachEra(t, func(t *testing.T, v string) {
		ctx := context.Background()
		c := connect(t, v, client.Options{})
		prompts, err := c.ListPrompts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range prompts {
			names = append(names, p.Name)
			if p.Description == "" {
				t.Errorf("prompt %s lacks a description", p.Name)
			}
		}
		for _, want := range []string{"test_simple_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource", "test_prompt_with_image", "test_input_required_result_prompt"} {
			if !slices.Contains(names, want) {
				t.Errorf("prompts/list lacks %s", want)
			}
		}
		get := func(name string, args map[string]string) []*mcp.PromptMessage {
			t.Helper()
			res, err := c.GetPrompt(ctx, name, args)
			if err != nil || len(res.Messages) == 0 {
				t.Fatalf("%s: %+v %v", name, res, err)
			}
			return res.Messages
		}
		if m := get("test_simple_prompt", nil); m[0].Role != mcp.RoleUser || m[0].Content.(*mcp.TextContent).Text != "This is a simple prompt for testing." {
			t.Errorf("test_simple_prompt: %+v", m[0])
		}
		if m := get("test_prompt_with_arguments", map[string]string{"arg1": "hello", "arg2": "world"}); m[0].Content.(*mcp.TextContent).Text != "Prompt with arguments: arg1='hello', arg2='world'" {
			t.Errorf("test_prompt_with_arguments: %+v", m[0].Content)
		}
		if _, err := c.GetPrompt(ctx, "test_prompt_with_arguments", map[string]string{"arg1": "x"}); err == nil {
			t.Error("a missing required argument was accepted")
		}
		m := get("test_prompt_with_embedded_resource", map[string]string{"resourceUri": "test://example-resource"})
		if r, ok := m[0].Content.(*mcp.EmbeddedResource); !ok || r.Resource.URI != "test://example-resource" || *r.Resource.Text != "Embedded resource content for testing." {
			t.Errorf("test_prompt_with_embedded_resource: %+v", m[0].Content)
		}
		m = get("test_prompt_with_image", nil)
		if img, ok := m[0].Content.(*mcp.ImageContent); !ok || img.Data != redPixelPNG || img.MIMEType != "image/png" {
			t.Errorf("test_prompt_with_image: %+v", m[0].Content)
		}

		comp, err := c.Complete(ctx, &mcp.PromptReference{Name: "test_prompt_with_arguments"}, mcp.CompleteArgument{Name: "arg1", Value: "par"}, nil)
		if err != nil || !slices.Equal(comp.Values, []string{"paris", "park", "party"}) {
			t.Errorf("complete arg1=par: %+v %v", comp, err)
		}
		comp, err = c.Complete(ctx, &mcp.PromptReference{Name: "test_prompt_with_arguments"}, mcp.CompleteArgument{Name: "arg1", Value: "zzz"}, nil)
		if err != nil || comp.Values == nil || len(comp.Values) != 0 {
			t.Errorf("complete with no match: %+v %v", comp, err)
		}
		comp, err = c.Complete(ctx, &mcp.ResourceTemplateReference{URI: "test://template/{id}/data"}, mcp.CompleteArgument{Name: "id", Value: "12"}, nil)
		if err != nil || !slices.Equal(comp.Values, []string{"123"}) {
			t.Errorf("complete id=12: %+v %v", comp, err)
		}
	})
}

// TestInteractive: tools-call-sampling, tools-call-elicitation,
// elicitation-sep1034-defaults and elicitation-sep1330-enums; in
// 2026-07-28 the same tools complete through the client's retry loop.
func TestInteractive(t *testing.T) {
	forEachEra(t, func(t *testing.T, v string) {
		var r recorder
		c := connect(t, v, r.options())
		if got := call(t, c, "test_sampling", map[string]any{"prompt": "Test prompt for sampling"}).TextOf(); got != "LLM response: This is a test response from the client" {
			t.Errorf("test_sampling: %q", got)
		}
		if got := call(t, c, "test_elicitation", map[string]any{"message": "Please provide your information"}).TextOf(); got != `User response: action=accept, content={"email":"test@example.com","username":"testuser"}` {
			t.Errorf("test_elicitation: %q", got)
		}
		// The client fills in the defaults the user left out (SEP-1034).
		if got := call(t, c, "test_elicitation_sep1034_defaults", map[string]any{}).TextOf(); got != `Elicitation completed: action=accept, content={"age":30,"name":"Alice","score":95.5,"status":"active","verified":true}` {
			t.Errorf("test_elicitation_sep1034_defaults: %q", got)
		}
		call(t, c, "test_elicitation_sep1330_enums", map[string]any{})
		if res := call(t, c, "test_elicitation_url", map[string]any{}); res.IsError || res.TextOf() != "URL elicitation completed: action=accept" {
			t.Errorf("test_elicitation_url: %+v", res)
		}

		r.mu.Lock()
		defer r.mu.Unlock()
		if len(r.samples) == 0 || r.samples[0].MaxTokens != 100 || r.samples[0].Messages[0].Content[0].(*mcp.TextContent).Text != "Test prompt for sampling" {
			t.Errorf("sampling request: %+v", r.samples)
		}
		byMessage := map[string]*mcp.ElicitParams{}
		for _, p := range r.elicits {
			byMessage[p.Message] = p
		}
		d := byMessage["Please review and update the form fields with defaults"].RequestedSchema.Properties
		if d["name"].Default != "John Doe" || d["age"].Type != "integer" || d["score"].Default != 95.5 || d["status"].Default != "active" || d["verified"].Default != true {
			t.Errorf("SEP-1034 schema: %+v", d)
		}
		e := byMessage["Please select options from the enum fields"].RequestedSchema.Properties
		if len(e["untitledSingle"].Enum) != 3 || len(e["titledSingle"].OneOf) != 3 || len(e["legacyEnum"].EnumNames) != 3 ||
			e["untitledMulti"].Type != "array" || len(e["untitledMulti"].Items.Enum) != 3 || len(e["titledMulti"].Items.AnyOf) != 3 {
			t.Errorf("SEP-1330 schema: %+v", e)
		}
		if u := byMessage["Please complete the sign-in in your browser"]; u == nil || u.Mode != mcp.ElicitModeURL || u.URL == "" || (u.ElicitationID == "") == !mcp.IsStateless(v) {
			t.Errorf("URL elicitation: %+v", u)
		}
	})
}

// TestInputRequiredTools: the test_input_required_result_* tools and
// prompt, completed by the client's handlers (automatic retries in
// 2026-07-28, server-to-client requests before).
func TestInputRequiredTools(t *testing.T) {
	forEachEra(t, func(t *testing.T, v string) {
		var r recorder
		c := connect(t, v, r.options())
		for tool, want := range map[string]string{
			"test_input_required_result_elicitation":     "Hello, Alice!",
			"test_input_required_result_sampling":        "Sampling result: This is a test response from the client",
			"test_input_required_result_list_roots":      "Found 1 root(s)",
			"test_input_required_result_request_state":   "state-ok: requestState validated",
			"test_input_required_result_multiple_inputs": "Name: Alice; Greeting: This is a test response from the client; Roots: 1",
			"test_input_required_result_multi_round":     "Multi-round complete for Alice who likes blue",
			"test_input_required_result_tampered_state":  "integrity-ok: state verified",
			"test_input_required_result_capabilities":    "capabilities-ok: received elicit_input,sample_input",
			"test_streaming_elicitation":                 `Streaming complete: action=accept, content={"value":"v"}`,
			"test_missing_capability":                    "Success: This is a test response from the client",
		} {
			if got := call(t, c, tool, map[string]any{}).TextOf(); got != want {
				t.Errorf("%s: %q, want %q", tool, got, want)
			}
		}
		res, err := c.GetPrompt(context.Background(), "test_input_required_result_prompt", nil)
		if err != nil || res.Messages[0].Content.(*mcp.TextContent).Text != "Prompt with context: test context" {
			t.Errorf("test_input_required_result_prompt: %+v %v", res, err)
		}
		// Without the client's capabilities.
		plain := connect(t, v, client.Options{})
		if got := call(t, plain, "test_input_required_result_capabilities", map[string]any{}).TextOf(); got != "No supported capabilities declared" {
			t.Errorf("capabilities with none declared: %q", got)
		}
		_, err = plain.CallTool(context.Background(), "test_missing_capability", map[string]any{})
		var e *mcp.Error
		want := int64(mcp.CodeInvalidRequest)
		if mcp.IsStateless(v) {
			want = mcp.CodeMissingClientCapability
		}
		if !errors.As(err, &e) || e.Code != want || string(e.Data) != `{"requiredCapabilities":{"sampling":{}}}` {
			t.Errorf("test_missing_capability without sampling: %v (data %s), want code %d", err, dataOf(e), want)
		}
	})
}

func dataOf(e *mcp.Error) string {
	if e == nil {
		return ""
	}
	return string(e.Data)
}

// roundTrip is one raw tools/call (or prompts/get) of 2026-07-28.
type roundTrip struct {
	ResultType    string                     `json:"resultType"`
	InputRequests map[string]json.RawMessage `json:"inputRequests"`
	RequestState  string                     `json:"requestState"`
	Content       []json.RawMessage          `json:"content"`
	Messages      []json.RawMessage          `json:"messages"`
}

// methods returns the methods of the input requests, sorted, and their
// keys by method.
func (r *roundTrip) methods(t *testing.T) ([]string, map[string]string) {
	var ms []string
	keys := map[string]string{}
	for k, raw := range r.InputRequests {
		var in struct {
			Method string `json:"method"`
		}
		if err := json.Unmarshal(raw, &in); err != nil {
			t.Fatal(err)
		}
		ms = append(ms, in.Method)
		keys[in.Method] = k
	}
	slices.Sort(ms)
	return ms, keys
}

func rawCall(t *testing.T, c *client.Client, method string, params any) (*roundTrip, error) {
	t.Helper()
	var raw json.RawMessage
	if err := c.Call(context.Background(), method, params, &raw); err != nil {
		return nil, err
	}
	var rt roundTrip
	if err := json.Unmarshal(raw, &rt); err != nil {
		t.Fatalf("%s: %s: %v", method, raw, err)
	}
	return &rt, nil
}

var (
	elicitName  = json.RawMessage(`{"action":"accept","content":{"name":"Alice"}}`)
	elicitOK    = json.RawMessage(`{"action":"accept","content":{"ok":true}}`)
	elicitColor = json.RawMessage(`{"action":"accept","content":{"color":"blue"}}`)
	sampled     = json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"Hello there!"},"model":"test-model","stopReason":"endTurn"}`)
	rootsList   = json.RawMessage(`{"roots":[{"uri":"file:///test/root","name":"Test Root"}]}`)
)

// TestInputRequiredWire replays the input-required-result-* scenarios of
// 2026-07-28 message by message, as the suite sends them.
func TestInputRequiredWire(t *testing.T) {
	t.Parallel()
	c := connect(t, mcp.Version20260728, client.Options{Capabilities: mcp.ClientCapabilities{
		Sampling: &mcp.SamplingCapability{}, Elicitation: &mcp.ElicitationCapability{}, Roots: &mcp.RootsCapability{},
	}})
	first := func(name string, wantMethods ...string) (*roundTrip, map[string]string) {
		t.Helper()
		r1, err := rawCall(t, c, "tools/call", &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(`{}`)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ms, keys := r1.methods(t)
		if r1.ResultType != mcp.ResultInputRequired || r1.RequestState == "" || !slices.Equal(ms, wantMethods) {
			t.Fatalf("%s round 1: %+v, want input_required asking %v", name, r1, wantMethods)
		}
		return r1, keys
	}
	retry := func(name, state string, answers mcp.InputResponses) (*roundTrip, error) {
		return rawCall(t, c, "tools/call", &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(`{}`), InputResponses: answers, RequestState: state})
	}
	complete := func(name string, rt *roundTrip, err error) {
		t.Helper()
		if err != nil || rt.ResultType != mcp.ResultComplete || len(rt.Content) == 0 {
			t.Errorf("%s: %+v %v, want a complete result", name, rt, err)
		}
	}

	// basic-elicitation, -sampling, -list-roots, request-state.
	for name, answer := range map[string]json.RawMessage{
		"test_input_required_result_elicitation":   elicitName,
		"test_input_required_result_sampling":      sampled,
		"test_input_required_result_list_roots":    rootsList,
		"test_input_required_result_request_state": elicitOK,
	} {
		method := map[string]string{"test_input_required_result_elicitation": "elicitation/create", "test_input_required_result_sampling": "sampling/createMessage",
			"test_input_required_result_list_roots": "roots/list", "test_input_required_result_request_state": "elicitation/create"}[name]
		r1, keys := first(name, method)
		r2, err := retry(name, r1.RequestState, mcp.InputResponses{keys[method]: answer})
		complete(name, r2, err)
	}

	// multiple-input-requests.
	const multi = "test_input_required_result_multiple_inputs"
	r1, keys := first(multi, "elicitation/create", "roots/list", "sampling/createMessage")
	r2, err := retry(multi, r1.RequestState, mcp.InputResponses{keys["elicitation/create"]: elicitName, keys["sampling/createMessage"]: sampled, keys["roots/list"]: rootsList})
	complete(multi, r2, err)

	// multi-round: a second question with a new state, then done.
	const rounds = "test_input_required_result_multi_round"
	r1, keys = first(rounds, "elicitation/create")
	r2, err = retry(rounds, r1.RequestState, mcp.InputResponses{keys["elicitation/create"]: elicitName})
	if err != nil || r2.ResultType != mcp.ResultInputRequired || r2.RequestState == "" || r2.RequestState == r1.RequestState {
		t.Fatalf("multi-round round 2: %+v %v", r2, err)
	}
	_, keys2 := r2.methods(t)
	r3, err := retry(rounds, r2.RequestState, mcp.InputResponses{keys2["elicitation/create"]: elicitColor})
	complete(rounds, r3, err)
	if err == nil && !strings.Contains(string(r3.Content[0]), "Multi-round complete for Alice who likes blue") {
		t.Errorf("multi-round: %s", r3.Content[0])
	}

	// tampered-state: an altered state is a JSON-RPC error.
	const tampered = "test_input_required_result_tampered_state"
	r1, keys = first(tampered, "elicitation/create")
	_, err = retry(tampered, r1.RequestState+"-TAMPERED", mcp.InputResponses{keys["elicitation/create"]: elicitOK})
	var e *mcp.Error
	if !errors.As(err, &e) || e.Code != mcp.CodeInvalidParams {
		t.Errorf("tampered state: %v, want -32602", err)
	}

	// missing-input-response, validate-input: wrong, malformed or null
	// answers without state are asked again, never accepted.
	const basic = "test_input_required_result_elicitation"
	for _, answers := range []mcp.InputResponses{
		{"wrong_key": elicitName},
		{"user_name": json.RawMessage(`12345`)},
		nil,
	} {
		rt, err := retry(basic, "", answers)
		if err == nil && rt.ResultType != mcp.ResultInputRequired {
			t.Errorf("answers %s: %+v, want input_required or an error", answers, rt)
		}
	}

	// unsupported-methods: lists never ask.
	for _, m := range []string{"tools/list", "prompts/list"} {
		rt, err := rawCall(t, c, m, &mcp.PaginatedParams{})
		if err != nil || rt.ResultType != mcp.ResultComplete {
			t.Errorf("%s: %+v %v", m, rt, err)
		}
	}

	// non-tool-request: prompts/get asks and completes.
	p1, err := rawCall(t, c, "prompts/get", &mcp.GetPromptParams{Name: "test_input_required_result_prompt"})
	if err != nil || p1.ResultType != mcp.ResultInputRequired {
		t.Fatalf("prompt round 1: %+v %v", p1, err)
	}
	_, keys = p1.methods(t)
	p2, err := rawCall(t, c, "prompts/get", &mcp.GetPromptParams{Name: "test_input_required_result_prompt",
		InputResponses: mcp.InputResponses{keys["elicitation/create"]: json.RawMessage(`{"action":"accept","content":{"context":"test context"}}`)}, RequestState: p1.RequestState})
	if err != nil || p2.ResultType != mcp.ResultComplete || len(p2.Messages) != 1 {
		t.Errorf("prompt round 2: %+v %v", p2, err)
	}
}

// TestCapabilityCheckWire: input-required-result-capability-check, with a
// client that declares sampling only.
func TestCapabilityCheckWire(t *testing.T) {
	t.Parallel()
	c := connect(t, mcp.Version20260728, client.Options{Capabilities: mcp.ClientCapabilities{Sampling: &mcp.SamplingCapability{}}})
	rt, err := rawCall(t, c, "tools/call", &mcp.CallToolParams{Name: "test_input_required_result_capabilities"})
	if err != nil {
		t.Fatal(err)
	}
	if ms, _ := rt.methods(t); rt.ResultType != mcp.ResultInputRequired || !slices.Equal(ms, []string{"sampling/createMessage"}) {
		t.Errorf("%+v: want one sampling request", rt)
	}
}

// TestTriggers: test_trigger_tool_change and test_trigger_prompt_change
// change the lists, which legacy sessions hear of.
func TestTriggers(t *testing.T) {
	t.Parallel()
	var r recorder
	c := connect(t, mcp.Version20251125, r.options())
	ctx := context.Background()
	call(t, c, "test_trigger_tool_change", map[string]any{})
	tools, _ := c.ListTools(ctx)
	if !slices.ContainsFunc(tools, func(tool *mcp.Tool) bool { return tool.Name == "test_dynamic_tool" }) {
		t.Error("test_trigger_tool_change added no tool")
	}
	call(t, c, "test_trigger_tool_change", map[string]any{})
	tools, _ = c.ListTools(ctx)
	if slices.ContainsFunc(tools, func(tool *mcp.Tool) bool { return tool.Name == "test_dynamic_tool" }) {
		t.Error("test_trigger_tool_change did not remove its tool")
	}
	call(t, c, "test_trigger_prompt_change", map[string]any{})
	prompts, _ := c.ListPrompts(ctx)
	if !slices.ContainsFunc(prompts, func(p *mcp.Prompt) bool { return p.Name == "test_dynamic_prompt" }) {
		t.Error("test_trigger_prompt_change added no prompt")
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		r.mu.Lock()
		n := r.changed
		r.mu.Unlock()
		if n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d notifications/tools/list_changed, want 2", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
