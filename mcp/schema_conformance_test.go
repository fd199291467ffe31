package mcp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// The conformance tests encode representative values of every protocol
// type, wrap them in the JSON-RPC message that carries them, and validate
// the result against each revision's official schema: as published (lax),
// and closed (strict: see strictify), which catches members a revision does
// not define. Each value holds only what its revision defines; which
// members are revision-specific is what TestRevisionSpecificMembers pins.

// atLeast reports whether revision rev is since or newer.
func revAtLeast(rev, since string) bool { return rev >= since }

// reqMeta is the _meta of a request: the protocol metadata in 2026-07-28,
// a progress token before.
func sampleReqMeta(rev string) Meta {
	if IsStateless(rev) {
		return Meta{
			MetaProtocolVersion:    rev,
			MetaClientInfo:         map[string]any{"name": "conformance-client", "version": "1.0.0"},
			MetaClientCapabilities: map[string]any{"sampling": map[string]any{}},
			MetaLogLevel:           "info",
			MetaProgressToken:      "tok-1",
		}
	}
	return Meta{MetaProgressToken: "tok-1"}
}

// envelope is the ResultEnvelope a server sends in rev.
func sampleEnvelope(rev string) ResultEnvelope {
	if IsStateless(rev) {
		return ResultEnvelope{ResultType: ResultComplete, Meta: Meta{MetaServerInfo: &Implementation{Name: "winbridge", Version: "0.1.0"}}}
	}
	return ResultEnvelope{}
}

// cache is the CacheHint of a cacheable result in rev.
func sampleCache(rev string) CacheHint {
	if IsStateless(rev) {
		return CacheHint{TTLMs: Ptr(int64(60000)), CacheScope: "private"}
	}
	return CacheHint{}
}

func sampleAnnotations(rev string) *Annotations {
	a := &Annotations{Audience: []Role{RoleUser, RoleAssistant}, Priority: Ptr(0.5)}
	if revAtLeast(rev, Version20250618) {
		a.LastModified = "2025-05-03T14:30:00Z"
	}
	return a
}

func sampleContentMeta(rev string) Meta {
	if revAtLeast(rev, Version20250618) {
		return Meta{"example.com/tag": "x"}
	}
	return nil
}

func sampleImpl(rev string) Implementation {
	i := Implementation{Name: "winbridge", Version: "0.1.0"}
	if revAtLeast(rev, Version20250618) {
		i.Title = "WinBridge"
	}
	if revAtLeast(rev, Version20251125) {
		i.Description = "Windows bridge"
		i.WebsiteURL = "https://example.com"
		i.Icons = []Icon{{Src: "https://example.com/i.png", MIMEType: "image/png", Sizes: []string{"48x48"}, Theme: "dark"}}
	}
	return i
}

func sampleIcons(rev string) []Icon {
	if revAtLeast(rev, Version20251125) {
		return []Icon{{Src: "https://example.com/i.svg", Sizes: []string{"any"}}}
	}
	return nil
}

func sampleTitle(rev, t string) string {
	if revAtLeast(rev, Version20250618) {
		return t
	}
	return ""
}

func sampleTextContent(rev string) *TextContent {
	return &TextContent{Text: "hello", Annotations: sampleAnnotations(rev), Meta: sampleContentMeta(rev)}
}

func sampleResourceContents(rev string, blob bool) *ResourceContents {
	rc := &ResourceContents{URI: "file:///a.txt", MIMEType: "text/plain", Meta: sampleContentMeta(rev)}
	if blob {
		rc.MIMEType = "application/octet-stream"
		rc.Blob = Ptr("AAEC")
	} else {
		rc.Text = Ptr("text")
	}
	return rc
}

// contentBlocks are the content blocks of a tool result or prompt in rev.
func sampleContentBlocks(rev string) []Content {
	out := []Content{
		sampleTextContent(rev),
		&ImageContent{Data: "iVBORw0KGgo=", MIMEType: "image/png", Annotations: sampleAnnotations(rev), Meta: sampleContentMeta(rev)},
		&EmbeddedResource{Resource: sampleResourceContents(rev, false), Annotations: sampleAnnotations(rev), Meta: sampleContentMeta(rev)},
		&EmbeddedResource{Resource: sampleResourceContents(rev, true)},
	}
	if revAtLeast(rev, Version20250326) {
		out = append(out, &AudioContent{Data: "UklGRg==", MIMEType: "audio/wav", Annotations: sampleAnnotations(rev), Meta: sampleContentMeta(rev)})
	}
	if revAtLeast(rev, Version20250618) {
		out = append(out, &ResourceLink{URI: "file:///b.rs", Name: "b.rs", Title: "B", Description: "d", MIMEType: "text/x-rust", Size: Ptr(int64(12)), Icons: sampleIcons(rev), Annotations: sampleAnnotations(rev), Meta: sampleContentMeta(rev)})
	}
	return out
}

func sampleTool(rev string) *Tool {
	t := &Tool{
		Name:        "get_weather",
		Description: "Weather",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
	}
	if revAtLeast(rev, Version20250326) {
		t.Annotations = &ToolAnnotations{Title: "Weather", ReadOnlyHint: Ptr(true), DestructiveHint: Ptr(false), IdempotentHint: Ptr(true), OpenWorldHint: Ptr(true)}
	}
	if revAtLeast(rev, Version20250618) {
		t.Title = "Weather"
		t.OutputSchema = json.RawMessage(`{"type":"object","properties":{"t":{"type":"number"}}}`)
		t.Meta = Meta{"example.com/x": 1}
	}
	t.Icons = sampleIcons(rev)
	if rev == Version20251125 {
		t.Execution = &ToolExecution{TaskSupport: TaskOptional}
	}
	return t
}

func sampleClientCaps(rev string) ClientCapabilities {
	c := ClientCapabilities{
		Roots:        &RootsCapability{ListChanged: !IsStateless(rev)},
		Sampling:     &SamplingCapability{},
		Experimental: map[string]map[string]any{"x": {}},
	}
	if revAtLeast(rev, Version20250618) {
		c.Elicitation = &ElicitationCapability{}
	}
	if revAtLeast(rev, Version20251125) {
		c.Elicitation = &ElicitationCapability{Form: &struct{}{}, URL: &struct{}{}}
		c.Sampling = &SamplingCapability{Context: map[string]any{}, Tools: map[string]any{}}
	}
	if rev == Version20251125 {
		c.Tasks = map[string]any{"list": map[string]any{}}
	}
	if IsStateless(rev) {
		c.Extensions = map[string]map[string]any{"io.modelcontextprotocol/ui": {"mimeTypes": []any{"text/html"}}}
	}
	return c
}

func sampleServerCaps(rev string) ServerCapabilities {
	c := ServerCapabilities{
		Tools:     &ToolsCapability{ListChanged: true},
		Resources: &ResourcesCapability{Subscribe: true, ListChanged: true},
		Prompts:   &PromptsCapability{ListChanged: true},
		Logging:   &struct{}{},
	}
	if revAtLeast(rev, Version20250326) {
		c.Completions = &struct{}{}
	}
	if IsStateless(rev) {
		c.Extensions = map[string]map[string]any{"io.modelcontextprotocol/tasks": {}}
	}
	return c
}

func sampleSamplingMessages(rev string) []*SamplingMessage {
	msgs := []*SamplingMessage{
		{Role: RoleUser, Content: []Content{&TextContent{Text: "What is the weather?"}}},
		{Role: RoleUser, Content: []Content{&ImageContent{Data: "iVBORw0KGgo=", MIMEType: "image/png"}}},
	}
	if revAtLeast(rev, Version20250326) {
		msgs = append(msgs, &SamplingMessage{Role: RoleUser, Content: []Content{&AudioContent{Data: "UklGRg==", MIMEType: "audio/wav"}}})
	}
	if revAtLeast(rev, Version20251125) {
		msgs = append(msgs,
			&SamplingMessage{Role: RoleAssistant, Content: []Content{
				&ToolUseContent{ID: "c1", Name: "get_weather", Input: map[string]any{"city": "Paris"}},
				&ToolUseContent{ID: "c2", Name: "get_weather", Input: map[string]any{"city": "London"}, Meta: Meta{"k": "v"}},
			}},
			&SamplingMessage{Role: RoleUser, Meta: Meta{"k": "v"}, Content: []Content{
				&ToolResultContent{ToolUseID: "c1", Content: []Content{sampleTextContent(rev)}, StructuredContent: map[string]any{"t": 18}},
				&ToolResultContent{ToolUseID: "c2", Content: []Content{&TextContent{Text: "rain"}}, IsError: Ptr(false)},
			}},
		)
	}
	return msgs
}

func sampleCreateMessageParams(rev string) *CreateMessageParams {
	p := &CreateMessageParams{
		Messages:         sampleSamplingMessages(rev),
		ModelPreferences: &ModelPreferences{Hints: []*ModelHint{{Name: "claude"}}, CostPriority: Ptr(0.3), SpeedPriority: Ptr(0.8), IntelligencePriority: Ptr(0.5)},
		SystemPrompt:     "Be brief.",
		IncludeContext:   "none",
		Temperature:      Ptr(0.7),
		MaxTokens:        100,
		StopSequences:    []string{"\n\n"},
		Metadata:         map[string]any{"k": "v"},
	}
	if revAtLeast(rev, Version20251125) {
		p.Tools = []*Tool{sampleTool(rev)}
		p.ToolChoice = &ToolChoice{Mode: "auto"}
	}
	if rev == Version20251125 {
		p.Meta = Meta{MetaProgressToken: 7}
	}
	return p
}

func sampleCreateMessageResult(rev string) *CreateMessageResult {
	r := &CreateMessageResult{Role: RoleAssistant, Content: []Content{&TextContent{Text: "Paris"}}, Model: "claude-x", StopReason: "endTurn"}
	if revAtLeast(rev, Version20251125) {
		r.Content = []Content{&ToolUseContent{ID: "c1", Name: "get_weather", Input: map[string]any{"city": "Paris"}}, &ToolUseContent{ID: "c2", Name: "get_weather", Input: map[string]any{}}}
		r.StopReason = "toolUse"
	}
	if !IsStateless(rev) {
		r.Meta = Meta{"k": "v"}
	}
	return r
}

func sampleElicitForm(rev string) *ElicitParams {
	p := &ElicitParams{
		Message: "Who are you?",
		RequestedSchema: &ElicitationSchema{
			Properties: map[string]*PrimitiveSchemaDefinition{
				"name":  {Type: "string", Title: "Name", Description: "Your name", MinLength: Ptr(int64(1)), MaxLength: Ptr(int64(50)), Format: "email"},
				"age":   {Type: "integer", Minimum: Ptr(0.0), Maximum: Ptr(150.0)},
				"ok":    {Type: "boolean", Default: true},
				"color": {Type: "string", Enum: []string{"red", "green"}, EnumNames: []string{"Red", "Green"}},
			},
			Required: []string{"name"},
		},
	}
	if revAtLeast(rev, Version20251125) {
		p.Mode = ElicitModeForm
		p.RequestedSchema.Schema = "https://json-schema.org/draft/2020-12/schema"
		p.RequestedSchema.Properties["name"].Default = "octocat"
		p.RequestedSchema.Properties["age"].Default = 30
		p.RequestedSchema.Properties["one"] = &PrimitiveSchemaDefinition{Type: "string", OneOf: []EnumOption{{Const: "r", Title: "Red"}}, Default: "r"}
		p.RequestedSchema.Properties["many"] = &PrimitiveSchemaDefinition{Type: "array", Items: &EnumItems{Type: "string", Enum: []string{"a", "b"}}, MinItems: Ptr(int64(1)), MaxItems: Ptr(int64(2)), Default: []string{"a"}}
		p.RequestedSchema.Properties["manyTitled"] = &PrimitiveSchemaDefinition{Type: "array", Items: &EnumItems{AnyOf: []EnumOption{{Const: "a", Title: "A"}}}}
	}
	if rev == Version20251125 {
		p.Meta = Meta{MetaProgressToken: "e"}
	}
	return p
}

func sampleElicitURL(rev string) *ElicitParams {
	p := &ElicitParams{Mode: ElicitModeURL, Message: "Sign in", URL: "https://example.com/login"}
	if rev == Version20251125 {
		p.ElicitationID = "el-1"
	}
	return p
}

func sampleElicitResult(rev string) *ElicitResult {
	r := &ElicitResult{Action: ElicitActionAccept, Content: map[string]any{"name": "octocat", "age": 30, "ok": true}}
	if revAtLeast(rev, Version20251125) {
		r.Content["many"] = []string{"a", "b"}
	}
	if !IsStateless(rev) {
		r.Meta = Meta{"k": "v"}
	}
	return r
}

func sampleListRootsResult(rev string) *ListRootsResult {
	r := &ListRootsResult{Roots: []*Root{{URI: "file:///home/u/p", Name: "p"}, {URI: "file:///tmp"}}}
	if revAtLeast(rev, Version20250618) {
		r.Roots[0].Meta = Meta{"k": "v"}
	}
	if !IsStateless(rev) {
		r.Meta = Meta{"k": "v"}
	}
	return r
}

func sampleCallToolResult(rev string) *CallToolResult {
	r := &CallToolResult{Content: sampleContentBlocks(rev), ResultEnvelope: sampleEnvelope(rev)}
	if revAtLeast(rev, Version20250618) {
		r.StructuredContent = map[string]any{"t": 22.5}
	}
	return r
}

func samplePrompt(rev string) *Prompt {
	return &Prompt{
		Name: "review", Title: sampleTitle(rev, "Review"), Description: "Review code",
		Arguments: []*PromptArgument{{Name: "code", Title: sampleTitle(rev, "Code"), Description: "The code", Required: true}, {Name: "lang"}},
		Icons:     sampleIcons(rev),
	}
}

func samplePromptMessages(rev string) []*PromptMessage {
	var out []*PromptMessage
	for _, c := range sampleContentBlocks(rev) {
		out = append(out, &PromptMessage{Role: RoleUser, Content: c})
	}
	return append(out, &PromptMessage{Role: RoleAssistant, Content: &TextContent{Text: "ok"}})
}

func sampleResource(rev string) *Resource {
	r := &Resource{URI: "file:///a.txt", Name: "a.txt", Title: sampleTitle(rev, "A"), Description: "A file", MIMEType: "text/plain", Icons: sampleIcons(rev), Annotations: sampleAnnotations(rev)}
	if revAtLeast(rev, Version20250326) {
		r.Size = Ptr(int64(42))
	}
	if revAtLeast(rev, Version20250618) {
		r.Meta = Meta{"k": "v"}
	}
	return r
}

func sampleResourceTemplate(rev string) *ResourceTemplate {
	r := &ResourceTemplate{URITemplate: "file:///{path}", Name: "files", Title: sampleTitle(rev, "Files"), Description: "Files", MIMEType: "text/plain", Icons: sampleIcons(rev), Annotations: sampleAnnotations(rev)}
	if revAtLeast(rev, Version20250618) {
		r.Meta = Meta{"k": "v"}
	}
	return r
}

func sampleCompleteParams(rev string, ref Reference) *CompleteParams {
	p := &CompleteParams{Ref: ref, Argument: CompleteArgument{Name: "lang", Value: "py"}, Meta: sampleReqMeta(rev)}
	if revAtLeast(rev, Version20250618) {
		p.Context = &CompleteContext{Arguments: map[string]string{"framework": "flask"}}
	}
	return p
}

func samplePromptRef(rev string) *PromptReference {
	return &PromptReference{Name: "review", Title: sampleTitle(rev, "Review")}
}

func sampleInputRequired(rev string) *InputRequiredResult {
	return &InputRequiredResult{
		InputRequests: InputRequests{
			"login":   ElicitInput(sampleElicitForm(rev)),
			"url":     ElicitInput(sampleElicitURL(rev)),
			"capital": CreateMessageInput(sampleCreateMessageParams(rev)),
			"roots":   ListRootsInput(),
			"roots2":  {Method: "roots/list", Params: &RequestParams{Meta: Meta{"k": "v"}}},
		},
		RequestState: "eyJzIjoxfQ",
		ResultEnvelope: ResultEnvelope{
			ResultType: ResultInputRequired,
			Meta:       sampleEnvelope(rev).Meta,
		},
	}
}

func sampleInputResponses(t testing.TB, rev string) InputResponses {
	r := InputResponses{}
	for k, v := range map[string]any{"login": sampleElicitResult(rev), "capital": sampleCreateMessageResult(rev), "roots": sampleListRootsResult(rev)} {
		if err := r.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// msgKind is what carries a value.
type msgKind int

const (
	kRequest      msgKind = iota // a JSON-RPC request (an InputRequest in 2026-07-28 for server-to-client methods)
	kNotification                // a JSON-RPC notification
	kResult                      // a JSON-RPC result response (an InputResponse in 2026-07-28 for client results)
	kObject                      // a bare object (content block, capability...)
)

type confCase struct {
	name   string
	since  string // first revision; "" means 2024-11-05
	until  string // last revision; "" means the latest
	kind   msgKind
	method string
	def    func(rev string) string // definition of the message (request, notification) or value (result, object)
	build  func(t testing.TB, rev string) any
	// notStrict skips the strict check of a message whose params are an
	// allOf of referenced definitions (TaskStatusNotificationParams):
	// strictify closes each referenced definition on its own, and no
	// object can then satisfy all of them.
	notStrict bool
}

func defName(name string) func(string) string { return func(string) string { return name } }

func conformanceCases() []confCase {
	legacy := Version20251125
	stateless := Version20260728
	return []confCase{
		// Lifecycle.
		{name: "initialize", until: legacy, kind: kRequest, method: "initialize", def: defName("InitializeRequest"), build: func(_ testing.TB, rev string) any {
			return &InitializeParams{ProtocolVersion: rev, Capabilities: sampleClientCaps(rev), ClientInfo: sampleImpl(rev)}
		}},
		{name: "initialize result", until: legacy, kind: kResult, def: defName("InitializeResult"), build: func(_ testing.TB, rev string) any {
			return &InitializeResult{ProtocolVersion: rev, Capabilities: sampleServerCaps(rev), ServerInfo: sampleImpl(rev), Instructions: "Use it well.", Meta: Meta{"k": "v"}}
		}},
		{name: "initialized", until: legacy, kind: kNotification, method: "notifications/initialized", def: defName("InitializedNotification"), build: func(_ testing.TB, rev string) any {
			return &NotificationParams{}
		}},
		{name: "ping", until: legacy, kind: kRequest, method: "ping", def: defName("PingRequest"), build: func(_ testing.TB, rev string) any {
			return &RequestParams{Meta: sampleReqMeta(rev)}
		}},
		{name: "empty result", kind: kResult, def: defName("EmptyResult"), build: func(_ testing.TB, rev string) any {
			return &EmptyResult{ResultEnvelope: sampleEnvelope(rev)}
		}},
		{name: "discover", since: stateless, kind: kRequest, method: "server/discover", def: defName("DiscoverRequest"), build: func(_ testing.TB, rev string) any {
			return &RequestParams{Meta: sampleReqMeta(rev)}
		}},
		{name: "discover result", since: stateless, kind: kResult, def: defName("DiscoverResult"), build: func(_ testing.TB, rev string) any {
			return &DiscoverResult{SupportedVersions: SupportedVersions, Capabilities: sampleServerCaps(rev), Instructions: "Use it well.", CacheHint: CacheHint{TTLMs: Ptr(int64(0)), CacheScope: "public"}, ResultEnvelope: sampleEnvelope(rev)}
		}},
		{name: "set level", until: legacy, kind: kRequest, method: "logging/setLevel", def: defName("SetLevelRequest"), build: func(_ testing.TB, rev string) any {
			return &SetLevelParams{Level: LevelWarning}
		}},

		// Utilities.
		{name: "cancelled", kind: kNotification, method: "notifications/cancelled", def: defName("CancelledNotification"), build: func(_ testing.TB, rev string) any {
			return &CancelledParams{RequestID: json.RawMessage(`"req-7"`), Reason: "user"}
		}},
		{name: "cancelled int id", kind: kNotification, method: "notifications/cancelled", def: defName("CancelledNotification"), build: func(_ testing.TB, rev string) any {
			return &CancelledParams{RequestID: json.RawMessage(`7`)}
		}},
		{name: "progress", kind: kNotification, method: "notifications/progress", def: defName("ProgressNotification"), build: func(_ testing.TB, rev string) any {
			p := &ProgressParams{ProgressToken: "tok-1", Progress: 50, Total: Ptr(100.0)}
			if revAtLeast(rev, Version20250326) {
				p.Message = "Half way"
			}
			return p
		}},
		{name: "log message", kind: kNotification, method: "notifications/message", def: defName("LoggingMessageNotification"), build: func(_ testing.TB, rev string) any {
			return &LoggingMessageParams{Level: LevelError, Logger: "db", Data: map[string]any{"error": "down", "port": 5432}}
		}},

		// Tools.
		{name: "tools/list", kind: kRequest, method: "tools/list", def: defName("ListToolsRequest"), build: func(_ testing.TB, rev string) any {
			return &PaginatedParams{Cursor: "c1", Meta: sampleReqMeta(rev)}
		}},
		{name: "tools/list result", kind: kResult, def: defName("ListToolsResult"), build: func(_ testing.TB, rev string) any {
			return &ListToolsResult{Tools: []*Tool{sampleTool(rev)}, NextCursor: "c2", CacheHint: sampleCache(rev), ResultEnvelope: sampleEnvelope(rev)}
		}},
		{name: "tools/list empty result", kind: kResult, def: defName("ListToolsResult"), build: func(_ testing.TB, rev string) any {
			return &ListToolsResult{CacheHint: sampleCache(rev), ResultEnvelope: sampleEnvelope(rev)}
		}},
		{name: "tools/call", kind: kRequest, method: "tools/call", def: defName("CallToolRequest"), build: func(_ testing.TB, rev string) any {
			return &CallToolParams{Name: "get_weather", Arguments: json.RawMessage(`{"city":"Paris"}`), Meta: sampleReqMeta(rev)}
		}},
		{name: "tools/call retry", since: stateless, kind: kRequest, method: "tools/call", def: defName("CallToolRequest"), build: func(t testing.TB, rev string) any {
			return &CallToolParams{Name: "get_weather", Arguments: json.RawMessage(`{}`), InputResponses: sampleInputResponses(t, rev), RequestState: "eyJzIjoxfQ", Meta: sampleReqMeta(rev)}
		}},
		{name: "tools/call result", kind: kResult, def: defName("CallToolResult"), build: func(_ testing.TB, rev string) any {
			return sampleCallToolResult(rev)
		}},
		{name: "tools/call error result", kind: kResult, def: defName("CallToolResult"), build: func(_ testing.TB, rev string) any {
			return &CallToolResult{IsError: true, Content: []Content{&TextContent{Text: "boom"}}, ResultEnvelope: sampleEnvelope(rev)}
		}},
		{name: "tools/call empty result", kind: kResult, def: defName("CallToolResult"), build: func(_ testing.TB, rev string) any {
			return &CallToolResult{IsErrorSet: true, ResultEnvelope: sampleEnvelope(rev)}
		}},
		{name: "tools/call array structured result", since: stateless, kind: kResult, def: defName("CallToolResult"), build: func(_ testing.TB, rev string) any {
			return &CallToolResult{Content: []Content{&TextContent{Text: "[1,2]"}}, StructuredContent: []any{1, 2}, ResultEnvelope: sampleEnvelope(rev)}
		}},
		{name: "tools/call input required", since: stateless, kind: kResult, def: defName("InputRequiredResult"), build: func(_ testing.TB, rev string) any {
			return sampleInputRequired(rev)
		}},
		{name: "tools list changed", kind: kNotification, method: "notifications/tools/list_changed", def: defName("ToolListChangedNotification"), build: func(_ testing.TB, rev string) any {
			return sampleListChanged(rev)
		}},

		// Tasks of 2025-11-25 (the 2026-07-28 extension is not in the schema).
		{name: "tools/call as a task", since: legacy, until: legacy, kind: kRequest, method: "tools/call", def: defName("CallToolRequest"), build: func(_ testing.TB, rev string) any {
			return &CallToolParams{Name: "build", Arguments: json.RawMessage(`{}`), Task: &TaskMetadata{TTL: Ptr(int64(60000))}}
		}},
		{name: "task-augmented params", since: legacy, until: legacy, kind: kObject, def: defName("TaskAugmentedRequestParams"), build: func(_ testing.TB, rev string) any {
			return map[string]any{"task": &TaskMetadata{TTL: Ptr(int64(60000))}}
		}},
		{name: "task metadata", since: legacy, until: legacy, kind: kObject, def: defName("TaskMetadata"), build: func(_ testing.TB, rev string) any {
			return &TaskMetadata{TTL: Ptr(int64(1000))}
		}},
		{name: "task", since: legacy, until: legacy, kind: kObject, def: defName("Task"), build: func(_ testing.TB, rev string) any {
			return sampleTask(TaskWorking).legacy()
		}},
		{name: "task without ttl", since: legacy, until: legacy, kind: kObject, def: defName("Task"), build: func(_ testing.TB, rev string) any {
			t := sampleTask(TaskCompleted)
			t.TTL = 0
			return t.legacy()
		}},
		{name: "task status", since: legacy, until: legacy, kind: kObject, def: defName("TaskStatus"), build: func(_ testing.TB, rev string) any {
			return TaskInputRequired
		}},
		{name: "related task", since: legacy, until: legacy, kind: kObject, def: defName("RelatedTaskMetadata"), build: func(_ testing.TB, rev string) any {
			return map[string]any{"taskId": "t-1"}
		}},
		{name: "tool execution", since: legacy, until: legacy, kind: kObject, def: defName("ToolExecution"), build: func(_ testing.TB, rev string) any {
			return &ToolExecution{TaskSupport: TaskRequired, HandlerStartsTask: true}
		}},
		{name: "create task result", since: legacy, until: legacy, kind: kResult, def: defName("CreateTaskResult"), build: func(_ testing.TB, rev string) any {
			return &createTaskResultLegacy{Task: sampleTask(TaskWorking).legacy()}
		}},
		{name: "tasks/get", since: legacy, until: legacy, kind: kRequest, method: "tasks/get", def: defName("GetTaskRequest"), build: func(_ testing.TB, rev string) any {
			return &TaskParams{TaskID: "t-1"}
		}},
		{name: "tasks/get result", since: legacy, until: legacy, kind: kResult, def: defName("GetTaskResult"), build: func(_ testing.TB, rev string) any {
			return &taskResultLegacy{taskLegacy: sampleTask(TaskInputRequired).legacy()}
		}},
		{name: "tasks/result", since: legacy, until: legacy, kind: kRequest, method: "tasks/result", def: defName("GetTaskPayloadRequest"), build: func(_ testing.TB, rev string) any {
			return &TaskParams{TaskID: "t-1"}
		}},
		{name: "tasks/result result", since: legacy, until: legacy, kind: kResult, def: defName("GetTaskPayloadResult"), build: func(_ testing.TB, rev string) any {
			return map[string]any{"content": []any{map[string]any{"type": "text", "text": "done"}}, "_meta": map[string]any{MetaRelatedTask: map[string]any{"taskId": "t-1"}}}
		}},
		{name: "tasks/cancel", since: legacy, until: legacy, kind: kRequest, method: "tasks/cancel", def: defName("CancelTaskRequest"), build: func(_ testing.TB, rev string) any {
			return &TaskParams{TaskID: "t-1"}
		}},
		{name: "tasks/cancel result", since: legacy, until: legacy, kind: kResult, def: defName("CancelTaskResult"), build: func(_ testing.TB, rev string) any {
			return &taskResultLegacy{taskLegacy: sampleTask(TaskCancelled).legacy()}
		}},
		{name: "tasks/list", since: legacy, until: legacy, kind: kRequest, method: "tasks/list", def: defName("ListTasksRequest"), build: func(_ testing.TB, rev string) any {
			return &PaginatedParams{Cursor: "c1"}
		}},
		{name: "tasks/list result", since: legacy, until: legacy, kind: kResult, def: defName("ListTasksResult"), build: func(_ testing.TB, rev string) any {
			return &listTasksResultLegacy{Tasks: []taskLegacy{sampleTask(TaskWorking).legacy(), sampleTask(TaskFailed).legacy()}, NextCursor: "c2"}
		}},
		{name: "tasks/list empty result", since: legacy, until: legacy, kind: kResult, def: defName("ListTasksResult"), build: func(_ testing.TB, rev string) any {
			return &listTasksResultLegacy{Tasks: []taskLegacy{}}
		}},
		{name: "task status notification", since: legacy, until: legacy, kind: kNotification, method: "notifications/tasks/status", def: defName("TaskStatusNotification"), build: func(_ testing.TB, rev string) any {
			t := sampleTask(TaskFailed)
			t.StatusMessage = "the build broke"
			return t.legacy()
		}, notStrict: true},

		// Resources.
		{name: "resources/list", kind: kRequest, method: "resources/list", def: defName("ListResourcesRequest"), build: func(_ testing.TB, rev string) any {
			return &PaginatedParams{Meta: sampleReqMeta(rev)}
		}},
		{name: "resources/list result", kind: kResult, def: defName("ListResourcesResult"), build: func(_ testing.TB, rev string) any {
			return &ListResourcesResult{Resources: []*Resource{sampleResource(rev), {URI: "file:///b", Name: "b"}}, NextCursor: "n", CacheHint: sampleCache(rev), ResultEnvelope: sampleEnvelope(rev)}
		}},
		{name: "resources/templates/list", kind: kRequest, method: "resources/templates/list", def: defName("ListResourceTemplatesRequest"), build: func(_ testing.TB, rev string) any {
			return &PaginatedParams{Cursor: "x", Meta: sampleReqMeta(rev)}
		}},
		{name: "resources/templates/list result", kind: kResult, def: defName("ListResourceTemplatesResult"), build: func(_ testing.TB, rev string) any {
			return &ListResourceTemplatesResult{ResourceTemplates: []*ResourceTemplate{sampleResourceTemplate(rev)}, CacheHint: sampleCache(rev), ResultEnvelope: sampleEnvelope(rev)}
		}},
		{name: "resources/read", kind: kRequest, method: "resources/read", def: defName("ReadResourceRequest"), build: func(_ testing.TB, rev string) any {
			return &ReadResourceParams{URI: "file:///a.txt", Meta: sampleReqMeta(rev)}
		}},
		{name: "resources/read retry", since: stateless, kind: kRequest, method: "resources/read", def: defName("ReadResourceRequest"), build: func(t testing.TB, rev string) any {
			return &ReadResourceParams{URI: "file:///a.txt", InputResponses: sampleInputResponses(t, rev), RequestState: "s", Meta: sampleReqMeta(rev)}
		}},
		{name: "resources/read result", kind: kResult, def: defName("ReadResourceResult"), build: func(_ testing.TB, rev string) any {
			return &ReadResourceResult{Contents: []*ResourceContents{sampleResourceContents(rev, false), sampleResourceContents(rev, true)}, CacheHint: sampleCache(rev), ResultEnvelope: sampleEnvelope(rev)}
		}},
		{name: "resources/subscribe", until: legacy, kind: kRequest, method: "resources/subscribe", def: defName("SubscribeRequest"), build: func(_ testing.TB, rev string) any {
			return &SubscribeParams{URI: "file:///a.txt"}
		}},
		{name: "resources/unsubscribe", until: legacy, kind: kRequest, method: "resources/unsubscribe", def: defName("UnsubscribeRequest"), build: func(_ testing.TB, rev string) any {
			return &UnsubscribeParams{URI: "file:///a.txt", Meta: Meta{"k": "v"}}
		}},
		{name: "resource updated", kind: kNotification, method: "notifications/resources/updated", def: defName("ResourceUpdatedNotification"), build: func(_ testing.TB, rev string) any {
			return &ResourceUpdatedParams{URI: "file:///a.txt", Meta: sampleListChanged(rev).Meta}
		}},
		{name: "resources list changed", kind: kNotification, method: "notifications/resources/list_changed", def: defName("ResourceListChangedNotification"), build: func(_ testing.TB, rev string) any {
			return sampleListChanged(rev)
		}},

		// Prompts.
		{name: "prompts/list", kind: kRequest, method: "prompts/list", def: defName("ListPromptsRequest"), build: func(_ testing.TB, rev string) any {
			return &PaginatedParams{Meta: sampleReqMeta(rev)}
		}},
		{name: "prompts/list result", kind: kResult, def: defName("ListPromptsResult"), build: func(_ testing.TB, rev string) any {
			return &ListPromptsResult{Prompts: []*Prompt{samplePrompt(rev)}, NextCursor: "n", CacheHint: sampleCache(rev), ResultEnvelope: sampleEnvelope(rev)}
		}},
		{name: "prompts/get", kind: kRequest, method: "prompts/get", def: defName("GetPromptRequest"), build: func(_ testing.TB, rev string) any {
			return &GetPromptParams{Name: "review", Arguments: map[string]string{"code": "x := 1"}, Meta: sampleReqMeta(rev)}
		}},
		{name: "prompts/get retry", since: stateless, kind: kRequest, method: "prompts/get", def: defName("GetPromptRequest"), build: func(t testing.TB, rev string) any {
			return &GetPromptParams{Name: "review", InputResponses: sampleInputResponses(t, rev), RequestState: "s", Meta: sampleReqMeta(rev)}
		}},
		{name: "prompts/get result", kind: kResult, def: defName("GetPromptResult"), build: func(_ testing.TB, rev string) any {
			return &GetPromptResult{Description: "Review", Messages: samplePromptMessages(rev), ResultEnvelope: sampleEnvelope(rev)}
		}},
		{name: "prompts list changed", kind: kNotification, method: "notifications/prompts/list_changed", def: defName("PromptListChangedNotification"), build: func(_ testing.TB, rev string) any {
			return sampleListChanged(rev)
		}},

		// Completion.
		{name: "complete prompt", kind: kRequest, method: "completion/complete", def: defName("CompleteRequest"), build: func(_ testing.TB, rev string) any {
			return sampleCompleteParams(rev, samplePromptRef(rev))
		}},
		{name: "complete resource", kind: kRequest, method: "completion/complete", def: defName("CompleteRequest"), build: func(_ testing.TB, rev string) any {
			return sampleCompleteParams(rev, &ResourceTemplateReference{URI: "file:///{path}"})
		}},
		{name: "complete result", kind: kResult, def: defName("CompleteResult"), build: func(_ testing.TB, rev string) any {
			return &CompleteResult{Completion: Completion{Values: []string{"python", "pytorch"}, Total: Ptr(int64(10)), HasMore: Ptr(true)}, ResultEnvelope: sampleEnvelope(rev)}
		}},
		{name: "complete empty result", kind: kResult, def: defName("CompleteResult"), build: func(_ testing.TB, rev string) any {
			return &CompleteResult{ResultEnvelope: sampleEnvelope(rev)}
		}},

		// Sampling, elicitation, roots: requests of the server.
		{name: "sampling", kind: kRequest, method: "sampling/createMessage", def: defName("CreateMessageRequest"), build: func(_ testing.TB, rev string) any {
			return sampleCreateMessageParams(rev)
		}},
		{name: "sampling result", kind: kResult, def: defName("CreateMessageResult"), build: func(_ testing.TB, rev string) any {
			return sampleCreateMessageResult(rev)
		}},
		{name: "sampling single-block result", kind: kResult, def: defName("CreateMessageResult"), build: func(_ testing.TB, rev string) any {
			return &CreateMessageResult{Role: RoleAssistant, Content: []Content{&ImageContent{Data: "AA==", MIMEType: "image/png"}}, Model: "m"}
		}},
		{name: "elicit form", since: Version20250618, kind: kRequest, method: "elicitation/create", def: defName("ElicitRequest"), build: func(_ testing.TB, rev string) any {
			return sampleElicitForm(rev)
		}},
		{name: "elicit url", since: Version20251125, kind: kRequest, method: "elicitation/create", def: defName("ElicitRequest"), build: func(_ testing.TB, rev string) any {
			return sampleElicitURL(rev)
		}},
		{name: "elicit result", since: Version20250618, kind: kResult, def: defName("ElicitResult"), build: func(_ testing.TB, rev string) any {
			return sampleElicitResult(rev)
		}},
		{name: "elicit decline", since: Version20250618, kind: kResult, def: defName("ElicitResult"), build: func(_ testing.TB, rev string) any {
			return &ElicitResult{Action: ElicitActionDecline}
		}},
		{name: "elicitation complete", since: legacy, until: legacy, kind: kNotification, method: "notifications/elicitation/complete", def: defName("ElicitationCompleteNotification"), build: func(_ testing.TB, rev string) any {
			return &ElicitationCompleteParams{ElicitationID: "el-1"}
		}},
		{name: "roots/list", kind: kRequest, method: "roots/list", def: defName("ListRootsRequest"), build: func(_ testing.TB, rev string) any {
			return nil
		}},
		{name: "roots/list result", kind: kResult, def: defName("ListRootsResult"), build: func(_ testing.TB, rev string) any {
			return sampleListRootsResult(rev)
		}},
		{name: "roots list changed", until: legacy, kind: kNotification, method: "notifications/roots/list_changed", def: defName("RootsListChangedNotification"), build: func(_ testing.TB, rev string) any {
			return &NotificationParams{}
		}},

		// Subscriptions (2026-07-28).
		{name: "subscriptions/listen", since: stateless, kind: kRequest, method: "subscriptions/listen", def: defName("SubscriptionsListenRequest"), build: func(_ testing.TB, rev string) any {
			return &SubscriptionsListenParams{Notifications: SubscriptionFilter{ToolsListChanged: true, PromptsListChanged: true, ResourcesListChanged: true, ResourceSubscriptions: []string{"file:///a.txt"}}, Meta: sampleReqMeta(rev)}
		}},
		{name: "subscriptions acknowledged", since: stateless, kind: kNotification, method: "notifications/subscriptions/acknowledged", def: defName("SubscriptionsAcknowledgedNotification"), build: func(_ testing.TB, rev string) any {
			return &SubscriptionsAcknowledgedParams{Notifications: SubscriptionFilter{ToolsListChanged: true}, Meta: Meta{MetaSubscriptionID: "listen-1"}}
		}},
		{name: "subscriptions/listen result", since: stateless, kind: kResult, def: defName("SubscriptionsListenResult"), build: func(_ testing.TB, rev string) any {
			return &SubscriptionsListenResult{ResultEnvelope: ResultEnvelope{ResultType: ResultComplete, Meta: Meta{MetaSubscriptionID: "listen-1", MetaServerInfo: sampleImpl(rev)}}}
		}},

		// Objects.
		{name: "text content", kind: kObject, def: defName("TextContent"), build: func(_ testing.TB, rev string) any { return sampleTextContent(rev) }},
		{name: "image content", kind: kObject, def: defName("ImageContent"), build: func(_ testing.TB, rev string) any { return sampleContentBlocks(rev)[1] }},
		{name: "embedded resource", kind: kObject, def: defName("EmbeddedResource"), build: func(_ testing.TB, rev string) any { return sampleContentBlocks(rev)[2] }},
		{name: "embedded blob", kind: kObject, def: defName("EmbeddedResource"), build: func(_ testing.TB, rev string) any { return sampleContentBlocks(rev)[3] }},
		{name: "audio content", since: Version20250326, kind: kObject, def: defName("AudioContent"), build: func(_ testing.TB, rev string) any { return sampleContentBlocks(rev)[4] }},
		{name: "resource link", since: Version20250618, kind: kObject, def: defName("ResourceLink"), build: func(_ testing.TB, rev string) any { return sampleContentBlocks(rev)[5] }},
		{name: "content block", since: Version20250618, kind: kObject, def: defName("ContentBlock"), build: func(_ testing.TB, rev string) any { return sampleContentBlocks(rev)[5] }},
		{name: "tool use", since: legacy, kind: kObject, def: defName("ToolUseContent"), build: func(_ testing.TB, rev string) any {
			return &ToolUseContent{ID: "c", Name: "n"}
		}},
		{name: "tool result", since: legacy, kind: kObject, def: defName("ToolResultContent"), build: func(_ testing.TB, rev string) any {
			return &ToolResultContent{ToolUseID: "c", Content: sampleContentBlocks(rev), StructuredContent: map[string]any{"a": 1}, IsError: Ptr(true), Meta: Meta{"k": 1}}
		}},
		{name: "empty tool result", since: legacy, kind: kObject, def: defName("ToolResultContent"), build: func(_ testing.TB, rev string) any {
			return &ToolResultContent{ToolUseID: "c"}
		}},
		{name: "text resource contents", kind: kObject, def: defName("TextResourceContents"), build: func(_ testing.TB, rev string) any { return sampleResourceContents(rev, false) }},
		{name: "blob resource contents", kind: kObject, def: defName("BlobResourceContents"), build: func(_ testing.TB, rev string) any { return sampleResourceContents(rev, true) }},
		{name: "resource", kind: kObject, def: defName("Resource"), build: func(_ testing.TB, rev string) any { return sampleResource(rev) }},
		{name: "resource template", kind: kObject, def: defName("ResourceTemplate"), build: func(_ testing.TB, rev string) any { return sampleResourceTemplate(rev) }},
		{name: "resource template reference", kind: kObject, def: func(rev string) string {
			if revAtLeast(rev, Version20250618) {
				return "ResourceTemplateReference"
			}
			return "ResourceReference"
		}, build: func(_ testing.TB, rev string) any { return &ResourceTemplateReference{URI: "file:///{p}"} }},
		{name: "prompt reference", kind: kObject, def: defName("PromptReference"), build: func(_ testing.TB, rev string) any { return samplePromptRef(rev) }},
		{name: "prompt message", kind: kObject, def: defName("PromptMessage"), build: func(_ testing.TB, rev string) any { return samplePromptMessages(rev)[2] }},
		{name: "prompt argument", kind: kObject, def: defName("PromptArgument"), build: func(_ testing.TB, rev string) any { return samplePrompt(rev).Arguments[0] }},
		{name: "model hint", kind: kObject, def: defName("ModelHint"), build: func(_ testing.TB, rev string) any { return &ModelHint{Name: "sonnet"} }},
		{name: "tool annotations", since: Version20250326, kind: kObject, def: defName("ToolAnnotations"), build: func(_ testing.TB, rev string) any { return sampleTool(rev).Annotations }},
		{name: "prompt", kind: kObject, def: defName("Prompt"), build: func(_ testing.TB, rev string) any { return samplePrompt(rev) }},
		{name: "tool", kind: kObject, def: defName("Tool"), build: func(_ testing.TB, rev string) any { return sampleTool(rev) }},
		{name: "root", kind: kObject, def: defName("Root"), build: func(_ testing.TB, rev string) any { return sampleListRootsResult(rev).Roots[0] }},
		{name: "sampling message", kind: kObject, def: defName("SamplingMessage"), build: func(_ testing.TB, rev string) any {
			return sampleSamplingMessages(rev)[len(sampleSamplingMessages(rev))-1]
		}},
		{name: "model preferences", kind: kObject, def: defName("ModelPreferences"), build: func(_ testing.TB, rev string) any { return sampleCreateMessageParams(rev).ModelPreferences }},
		{name: "tool choice", since: legacy, kind: kObject, def: defName("ToolChoice"), build: func(_ testing.TB, rev string) any { return &ToolChoice{Mode: "required"} }},
		{name: "implementation", kind: kObject, def: defName("Implementation"), build: func(_ testing.TB, rev string) any { return sampleImpl(rev) }},
		{name: "client capabilities", kind: kObject, def: defName("ClientCapabilities"), build: func(_ testing.TB, rev string) any { return sampleClientCaps(rev) }},
		{name: "server capabilities", kind: kObject, def: defName("ServerCapabilities"), build: func(_ testing.TB, rev string) any { return sampleServerCaps(rev) }},
		{name: "primitive schemas", since: Version20250618, kind: kObject, def: defName("PrimitiveSchemaDefinition"), build: func(_ testing.TB, rev string) any {
			return sampleElicitForm(rev).RequestedSchema.Properties["color"]
		}},
		{name: "input requests", since: stateless, kind: kObject, def: defName("InputRequests"), build: func(_ testing.TB, rev string) any { return sampleInputRequired(rev).InputRequests }},
		{name: "input responses", since: stateless, kind: kObject, def: defName("InputResponses"), build: func(t testing.TB, rev string) any { return sampleInputResponses(t, rev) }},
	}
}

func sampleListChanged(rev string) *NotificationParams {
	if IsStateless(rev) {
		return &NotificationParams{Meta: Meta{MetaSubscriptionID: "listen-1"}}
	}
	return &NotificationParams{}
}

// message wraps v as the kind of message that carries it in rev, returning
// the message and the definitions it must satisfy. In 2026-07-28 requests
// of the server to the client are InputRequests ({method, params}) and
// their results InputResponses: bare values.
func (c *confCase) message(s *revSchema, rev string, v any) (msg map[string]any, defs []string, err error) {
	val, err := toJSONValue(v)
	if err != nil {
		return nil, nil, err
	}
	d := c.def(rev)
	serverToClient := c.method == "sampling/createMessage" || c.method == "elicitation/create" || c.method == "roots/list"
	switch c.kind {
	case kRequest:
		msg = map[string]any{"jsonrpc": "2.0", "id": 1, "method": c.method}
		if IsStateless(rev) && serverToClient {
			msg = map[string]any{"method": c.method}
		}
		if v != nil {
			msg["params"] = val
		}
		defs = []string{d}
		if !(IsStateless(rev) && serverToClient) {
			defs = append(defs, "JSONRPCRequest", "JSONRPCMessage")
		}
		return msg, defs, nil
	case kNotification:
		msg = map[string]any{"jsonrpc": "2.0", "method": c.method}
		if v != nil {
			msg["params"] = val
		}
		return msg, []string{d, "JSONRPCNotification", "JSONRPCMessage"}, nil
	case kResult:
		clientResult := d == "CreateMessageResult" || d == "ElicitResult" || d == "ListRootsResult"
		if IsStateless(rev) && clientResult {
			return nil, []string{d, "InputResponse"}, nil
		}
		msg = map[string]any{"jsonrpc": "2.0", "id": "r-1", "result": val}
		defs = []string{"JSONRPCResponse", "JSONRPCMessage"}
		if s.has(d + "Response") {
			defs = append(defs, d+"Response")
		}
		if d == "InputRequiredResult" {
			defs = append(defs, "CallToolResultResponse", "GetPromptResultResponse", "ReadResourceResultResponse")
		}
		return msg, defs, nil
	}
	return nil, nil, nil
}

// hasMember reports whether definition def declares member name.
func (s *revSchema) hasMember(def, name string) bool {
	defs, _ := s.raw[s.defsKey].(map[string]any)
	d, _ := defs[def].(map[string]any)
	props, _ := d["properties"].(map[string]any)
	_, ok := props[name]
	return ok
}

func TestSchemaConformance(t *testing.T) {
	requirePeers(t, peerSchemaDir)
	for _, rev := range schemaRevisions {
		t.Run(rev, func(t *testing.T) {
			s := schemaFor(t, rev)
			for _, c := range conformanceCases() {
				if c.since != "" && rev < c.since || c.until != "" && rev > c.until {
					continue
				}
				t.Run(c.name, func(t *testing.T) {
					d := c.def(rev)
					if !s.has(d) {
						t.Fatalf("%s does not define %s", rev, d)
					}
					v := c.build(t, rev)
					b, err := json.Marshal(v)
					if err != nil {
						t.Fatalf("encoding: %v", err)
					}
					msg, msgDefs, err := c.message(s, rev, v)
					if err != nil {
						t.Fatal(err)
					}
					// The value itself, lax and strict, for results and
					// objects (requests and notifications are checked as
					// the whole message).
					if c.kind == kResult || c.kind == kObject {
						for _, strict := range []bool{false, true} {
							if err := s.validate(d, json.RawMessage(b), strict); err != nil {
								t.Errorf("%s (strict=%v) rejects %s:\n%v", d, strict, b, err)
							}
						}
					}
					if msg == nil {
						for _, md := range msgDefs[min(1, len(msgDefs)):] {
							if err := s.validate(md, json.RawMessage(b), false); err != nil {
								t.Errorf("%s rejects %s:\n%v", md, b, err)
							}
						}
						return
					}
					mb, _ := json.Marshal(msg)
					for _, md := range msgDefs {
						if err := s.validate(md, json.RawMessage(mb), false); err != nil {
							t.Errorf("%s rejects %s:\n%v", md, mb, err)
						}
					}
					if (c.kind == kRequest || c.kind == kNotification) && !c.notStrict {
						// Strict: older revisions' message definitions do
						// not declare jsonrpc and id; drop what is undeclared.
						sm := map[string]any{}
						for k, e := range msg {
							if k == "method" || k == "params" || s.hasMember(d, k) {
								sm[k] = e
							}
						}
						if err := s.validate(d, sm, true); err != nil {
							smb, _ := json.Marshal(sm)
							t.Errorf("%s (strict) rejects %s:\n%v", d, smb, err)
						}
					}
				})
			}
		})
	}
}

// TestSchemaConformanceCoversDefinitions fails when a revision defines a
// message or content type that no conformance case exercises, so that new
// definitions are not silently left out.
func TestSchemaConformanceCoversDefinitions(t *testing.T) {
	requirePeers(t, peerSchemaDir)
	// Definitions that are abstract, unions tested through their members,
	// or error shapes (the server's errors are checked elsewhere).
	skip := map[string]bool{}
	for _, n := range []string{
		"Annotated", "Annotations", "BaseMetadata", "Cursor", "ClientNotification", "ClientRequest", "ClientResult",
		"ServerNotification", "ServerRequest", "ServerResult", "JSONRPCBatchRequest", "JSONRPCBatchResponse",
		"JSONRPCError", "JSONRPCErrorResponse", "JSONRPCResultResponse", "JSONRPCMessage", "JSONRPCNotification", "JSONRPCRequest", "JSONRPCResponse",
		"Notification", "NotificationParams", "Request", "RequestParams", "Result", "PaginatedRequest", "PaginatedRequestParams",
		"PaginatedResult", "ProgressToken", "RequestId", "Role", "LoggingLevel", "ResourceContents", "Icon", "Icons",
		"Error", "ParseError", "InvalidRequestError", "InvalidParamsError", "MethodNotFoundError", "InternalError",
		"HeaderMismatchError", "MissingRequiredClientCapabilityError", "UnsupportedProtocolVersionError", "URLElicitationRequiredError",
		"JSONArray", "JSONObject", "JSONValue", "MetaObject", "RequestMetaObject", "ResultMetaObject", "NotificationMetaObject",
		"SubscriptionsListenResultMetaObject", "ResultType", "CacheableResult", "InputRequest", "InputResponse",
		"InputResponseRequestParams", "ResourceRequestParams", "SamplingMessageContentBlock",
		"EnumSchema", "SingleSelectEnumSchema", "MultiSelectEnumSchema", "ElicitRequestParams",
		"StringSchema", "NumberSchema", "BooleanSchema", "UntitledSingleSelectEnumSchema", "TitledSingleSelectEnumSchema",
		"UntitledMultiSelectEnumSchema", "TitledMultiSelectEnumSchema", "LegacyTitledEnumSchema", "SubscriptionFilter",
	} {
		skip[n] = true
	}
	for _, rev := range schemaRevisions {
		s := schemaFor(t, rev)
		covered := map[string]bool{}
		for _, c := range conformanceCases() {
			if c.since != "" && rev < c.since || c.until != "" && rev > c.until {
				continue
			}
			d := c.def(rev)
			covered[d] = true
			covered[d+"Response"] = true
			if c.kind == kRequest || c.kind == kNotification {
				covered[d+"Params"] = true
				if len(d) > len("Request") && d[len(d)-len("Request"):] == "Request" {
					covered[d+"Params"] = true
					covered[d[:len(d)-len("Request")]+"RequestParams"] = true
				}
				if len(d) > len("Notification") && d[len(d)-len("Notification"):] == "Notification" {
					covered[d+"Params"] = true
				}
			}
			if d == "ElicitRequest" {
				covered["ElicitRequestFormParams"], covered["ElicitRequestURLParams"] = true, true
			}
			if d == "InputRequiredResult" {
				covered["InputRequests"] = true
			}
		}
		defs, _ := s.raw[s.defsKey].(map[string]any)
		for name := range defs {
			if !skip[name] && !covered[name] {
				t.Errorf("%s: definition %s is exercised by no conformance case", rev, name)
			}
		}
	}
}

// TestRevisionSpecificMembers pins, from the schemas, which members of the
// shared Go types a revision lacks, so that the server can omit them for
// older clients. A change in the schemas shows up here.
func TestRevisionSpecificMembers(t *testing.T) {
	requirePeers(t, peerSchemaDir)
	want := map[string]string{ // def.member -> first revision that has it
		"Implementation.title":             Version20250618,
		"Implementation.description":       Version20251125,
		"Implementation.icons":             Version20251125,
		"Implementation.websiteUrl":        Version20251125,
		"Tool.annotations":                 Version20250326,
		"Tool.title":                       Version20250618,
		"Tool.outputSchema":                Version20250618,
		"Tool._meta":                       Version20250618,
		"Tool.icons":                       Version20251125,
		"CallToolResult.structuredContent": Version20250618,
		"CallToolResult.resultType":        Version20260728,
		"ListToolsResult.ttlMs":            Version20260728,
		"ListToolsResult.cacheScope":       Version20260728,
		"Resource.title":                   Version20250618,
		"Resource.icons":                   Version20251125,
		"Prompt.title":                     Version20250618,
		"Prompt.icons":                     Version20251125,
		"PromptArgument.title":             Version20250618,
		"TextContent._meta":                Version20250618,
		"Annotations.lastModified":         Version20250618,
		"ClientCapabilities.elicitation":   Version20250618,
		"ClientCapabilities.extensions":    Version20260728,
		"ServerCapabilities.completions":   Version20250326,
		"ServerCapabilities.extensions":    Version20260728,
		"SamplingMessage._meta":            Version20251125,
	}
	for key, since := range want {
		d, m, _ := strings.Cut(key, ".")
		for _, rev := range schemaRevisions {
			s := schemaFor(t, rev)
			if !s.has(d) {
				continue
			}
			if got, wantHas := s.hasMember(d, m), rev >= since; got != wantHas {
				t.Errorf("%s: %s has member %s: %v, want %v (first in %s)", rev, d, m, got, wantHas, since)
			}
		}
	}
}

func sampleTask(status TaskStatus) *Task {
	at := time.Date(2025, 11, 25, 12, 0, 0, 0, time.UTC)
	return &Task{TaskID: "t-1", Status: status, CreatedAt: at, LastUpdatedAt: at.Add(time.Second), TTL: time.Hour, PollInterval: time.Second}
}
