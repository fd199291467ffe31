package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/winbridge/winbridge/internal/jsonscan"
)

// ToolHandler is an untyped tool handler: it reads req.Params.Arguments
// itself. Arguments have been validated against the tool's input schema.
//
// An error it returns becomes a tool error (a result with IsError set that
// the model can see and act on), unless it is an *Error, which is sent as a
// JSON-RPC protocol error.
type ToolHandler func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error)

// ToolHandlerFor is a typed tool handler. The server decodes the validated
// arguments into In. When the handler returns a nil result, the server
// builds one from out: out becomes structuredContent, mirrored as JSON text
// for clients that read only content. A handler that wants its own content,
// or IsError with structured output, returns a result and out together.
// Errors are treated as for ToolHandler.
type ToolHandlerFor[In, Out any] func(ctx context.Context, req *CallToolRequest, in In) (*CallToolResult, Out, error)

type serverTool struct {
	tool    *Tool
	handler ToolHandler

	// The input schema's validator. An inferred schema is compiled on the
	// tool's first call: registering is then cheap, and a process that
	// starts many tools and lists them is ready sooner.
	once  sync.Once
	input *jsonschema.Resolved
	check *argCheck // fast path; nil when the schema needs jsonschema-go alone
	err   error     // why the schema could not be compiled
	raw   bool      // AddToolRaw: the handler checks its own arguments
}

// AddTool registers an untyped tool, replacing any tool of the same name.
// t.InputSchema must be a JSON Schema of type "object"; nil means any
// object. It panics on an invalid tool, like http.Handle on a bad pattern:
// registration errors are programming errors. A name must follow the
// specification: 1 to 128 characters of A-Z a-z 0-9 _ - and '.'. A name
// outside ^[a-zA-Z0-9_-]{1,64}$ (see PortableToolName) is registered with
// a warning on the server's Logger: Claude Desktop withholds the whole
// tool list for one such name, and OpenAI and Codex reject it.
func (s *Server) AddTool(t *Tool, h ToolHandler) {
	if err := s.addUntyped(t, h); err != nil {
		panic(err.Error())
	}
}

// ErrInvalidTool is wrapped by TryAddTool's errors: a tool that AddTool
// would panic on.
var ErrInvalidTool = errors.New("invalid tool")

// TryAddTool is AddTool for tools that come from data (a plug-in, a
// configuration, another server): instead of panicking on an invalid
// tool (name, title or description, input schema, nil handler), it
// returns an error wrapping ErrInvalidTool and registers nothing.
func (s *Server) TryAddTool(t *Tool, h ToolHandler) error {
	if err := s.addUntyped(t, h); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidTool, err)
	}
	return nil
}

// addUntyped registers an untyped tool, or says why it cannot.
func (s *Server) addUntyped(t *Tool, h ToolHandler) error {
	st, err := newServerTool(t, h)
	if err == nil {
		err = st.compile()
	}
	if err != nil {
		return err
	}
	s.addTool(st)
	return nil
}

// AddTool registers a typed tool, replacing any tool of the same name. The
// input schema is inferred from In and the output schema from Out (none
// when Out is an interface type such as any), unless t sets them. Schemas
// are inline (no $ref), JSON Schema 2020-12; field descriptions come from
// struct tags (see SchemaFor). Names follow the rules of Server.AddTool. It
// panics on an invalid tool. An
// inferred input schema is compiled into a validator on the tool's first
// call; should that fail (a tag with a bad pattern, say), calls fail with
// an internal error.
func AddTool[In, Out any](s *Server, t *Tool, h ToolHandlerFor[In, Out]) {
	tt := *t
	inferred := tt.InputSchema == nil
	if inferred {
		tt.InputSchema = mustSchemaFor[In]("input", tt.Name)
		if typ := schemaType(tt.InputSchema); typ != "object" {
			panic(fmt.Sprintf("mcp: AddTool %q: input schema must have type \"object\", not %q", tt.Name, typ))
		}
	}
	outType := reflect.TypeFor[Out]()
	if tt.OutputSchema == nil && outType.Kind() != reflect.Interface {
		tt.OutputSchema = mustSchemaFor[Out]("output", tt.Name)
	}
	structured := tt.OutputSchema != nil
	decoder := sync.OnceValue(func() *argDecoder { return newArgDecoder(reflect.TypeFor[In]()) })
	st, err := newServerTool(&tt, func(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
		var in In
		args := req.Params.Arguments
		if len(args) == 0 || string(args) == "null" {
			args = []byte("{}")
		}
		// The arguments are valid JSON: decodeCallToolParams checked them.
		if !inferred {
			// A schema of the tool's own may let a member through that
			// encoding/json would take for a field ignoring case.
			if err := checkFoldedNames(args, reflect.TypeFor[In]()); err != nil {
				return toolError(fmt.Errorf("invalid arguments: %w", err)), nil
			}
		}
		if d := decoder(); d == nil || !d.decode(args, reflect.ValueOf(&in).Elem()) {
			var zero In
			in = zero
			if err := json.Unmarshal(args, &in); err != nil {
				return toolError(fmt.Errorf("invalid arguments: %w", err)), nil
			}
		}
		res, out, err := h(ctx, req, in)
		if err != nil {
			return nil, err
		}
		if res == nil {
			res = &CallToolResult{}
		}
		if res.StructuredContent == nil && (structured || any(out) != nil) {
			if rv := reflect.ValueOf(any(out)); !rv.IsValid() || (rv.Kind() == reflect.Pointer && rv.IsNil()) {
				return res, nil
			}
			b, err := json.Marshal(out)
			if err != nil {
				return nil, fmt.Errorf("encoding the output of tool %q: %w", req.Params.Name, err)
			}
			res.StructuredContent = json.RawMessage(b)
			if len(res.Content) == 0 {
				res.Content = []Content{&TextContent{Text: string(b)}}
			}
		}
		return res, nil
	})
	if err == nil && !inferred {
		err = st.compile()
	}
	if err != nil {
		panic(err.Error())
	}
	s.addTool(st)
}

// newServerTool checks t and h as registration does: an error is what
// AddTool panics on.
func newServerTool(t *Tool, h ToolHandler) (*serverTool, error) {
	if t == nil {
		return nil, errors.New("mcp: AddTool: nil tool")
	}
	if err := checkToolName(t.Name); err != nil {
		return nil, fmt.Errorf("mcp: AddTool: %w", err)
	}
	if !utf8.ValidString(t.Title) || !utf8.ValidString(t.Description) {
		// JSON would carry U+FFFD instead: the model would read another text.
		return nil, errors.New("mcp: AddTool " + t.Name + ": the title or description is not valid UTF-8")
	}
	if h == nil {
		return nil, errors.New("mcp: AddTool: nil handler for tool " + t.Name)
	}
	tt := *t
	if tt.InputSchema == nil {
		tt.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	return &serverTool{tool: &tt, handler: h}, nil
}

// compile compiles the input schema into its validator, once.
func (st *serverTool) compile() error {
	st.once.Do(func() {
		name := st.tool.Name
		var schema jsonschema.Schema
		if err := json.Unmarshal(st.tool.InputSchema, &schema); err != nil {
			st.err = fmt.Errorf("mcp: AddTool %q: input schema: %w", name, err)
			return
		}
		if schema.Type != "object" {
			st.err = fmt.Errorf("mcp: AddTool %q: input schema must have type \"object\", not %q", name, schema.Type)
			return
		}
		resolved, err := schema.Resolve(nil)
		if err != nil {
			st.err = fmt.Errorf("mcp: AddTool %q: input schema: %w", name, err)
			return
		}
		st.input, st.check = resolved, compileArgCheck(&schema)
	})
	return st.err
}

// schemaType returns the "type" of schema, an encoded JSON object, when it
// is a string.
func schemaType(schema json.RawMessage) string {
	if t, _ := jsonscan.Member(schema, "type"); string(t) == `"object"` {
		return "object" // without decoding: the schemas of tools are valid JSON
	}
	var v struct {
		Type any `json:"type"`
	}
	if json.Unmarshal(schema, &v) != nil {
		return ""
	}
	t, _ := v.Type.(string)
	return t
}

// call validates the arguments and runs the handler. Invalid arguments and
// handler errors are tool errors, which the model can correct; an *Error
// is a protocol error.
func (st *serverTool) call(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
	if res, err := st.validate(req); res != nil || err != nil {
		return res, err
	}
	return st.invoke(ctx, req)
}

// validate checks the arguments against the input schema: a result (a tool
// error) or an error when they do not pass, nil and nil when they do.
func (st *serverTool) validate(req *CallToolRequest) (*CallToolResult, error) {
	if err := st.compile(); err != nil {
		req.Session.srv.log.Error("mcp: a tool's input schema does not compile", "tool", st.tool.Name, "err", err)
		return nil, &Error{Code: CodeInternalError, Message: "internal error: " + err.Error()}
	}
	// The arguments are valid JSON (decodeCallToolParams checked them), as
	// the fast paths of validation and decoding need.
	if a := req.Params.Arguments; !st.raw && (st.check == nil || !st.check.accepts(a)) {
		var args any = map[string]any{}
		if len(a) > 0 && string(a) != "null" {
			if err := json.Unmarshal(a, &args); err != nil {
				return toolError(fmt.Errorf("invalid arguments: %w", err)), nil
			}
		}
		if err := st.input.Validate(args); err != nil {
			return toolError(fmt.Errorf("invalid arguments for tool %q: %w", st.tool.Name, err)), nil
		}
	}
	return nil, nil
}

// invoke runs the handler on validated arguments.
func (st *serverTool) invoke(ctx context.Context, req *CallToolRequest) (*CallToolResult, error) {
	res, err := st.handler(ctx, req)
	if req.input != nil && len(req.input.pending) > 0 {
		return nil, ErrInputRequired // the caller answers with the input requests
	}
	switch {
	case err != nil:
		return handlerFailed(err)
	case res == nil:
		return &CallToolResult{}, nil
	}
	return res, nil
}

// handlerFailed is the outcome of a call whose handler failed: an *Error
// is a protocol error, anything else a tool error. It is apart so that
// errors.As's target is allocated only on this path.
func handlerFailed(err error) (*CallToolResult, error) {
	var perr *Error
	if errors.As(err, &perr) {
		return nil, perr
	}
	return toolError(err), nil
}

// toolError is the result that reports a failed tool call to the model.
func toolError(err error) *CallToolResult {
	return &CallToolResult{IsError: true, Content: []Content{&TextContent{Text: err.Error()}}}
}
