package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/winbridge/winbridge/internal/jsonscan"
)

// AddToolRaw registers a tool whose handler checks its own arguments,
// replacing any tool of the same name. The server lists t.InputSchema as
// given but neither compiles nor enforces it; the arguments reach the
// handler as the client sent them (valid JSON). It is for proxies, whose
// schemas come from another server and may use keywords, references or
// dialects this server's validator does not accept, and which validate
// against a schema other than the one they list. A nil InputSchema is
// listed as any object.
func (s *Server) AddToolRaw(t *Tool, h ToolHandler) {
	st, err := newServerTool(t, h)
	if err != nil {
		panic(err.Error())
	}
	st.raw = true
	st.once.Do(func() {}) // nothing to compile
	s.addTool(st)
}

// unknownTool is the stand-in that ServerOptions.UnknownTool answers
// through.
func unknownTool(name string, h ToolHandler) *serverTool {
	// Not through newServerTool: name is whatever the client sent, and
	// the registration checks (a programming error's panics) are not for
	// it.
	st := &serverTool{tool: &Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, handler: h, raw: true}
	st.once.Do(func() {})
	return st
}

// CallToolFor runs tool name of s for a tools/call that another Server in
// this process received, with no transport between them: a proxy's fast
// path to an in-process upstream. The arguments are validated against the
// tool's schema as for any call. The tool sees the caller's request: its
// progress, log messages and questions to the user (elicitation,
// sampling) reach the client that made req. A panic in the tool becomes an
// error. An unknown name, or arguments that are not valid JSON, is a
// *Error with CodeInvalidParams.
func (s *Server) CallToolFor(ctx context.Context, req *CallToolRequest, name string, args json.RawMessage) (*CallToolResult, error) {
	st, ok := s.tools.get(name)
	if !ok {
		return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("Unknown tool: %q", name)}
	}
	// The tool's checks and decoders rely on valid JSON, which a transport
	// guarantees and a caller in the same process may not.
	if len(args) > 0 && !jsonscan.ValidMessage(args) {
		return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("invalid params for tool %q: the arguments are not valid JSON", name)}
	}
	p := *req.Params
	p.Name, p.Arguments = name, args
	r := *req
	r.Params = &p
	return callRecovered(ctx, st, &r)
}

func callRecovered(ctx context.Context, st *serverTool, r *CallToolRequest) (res *CallToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, &Error{Code: CodeInternalError, Message: fmt.Sprintf("internal error: tool %q panicked: %v", st.tool.Name, p)}
		}
	}()
	return st.call(ctx, r)
}
