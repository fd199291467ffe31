package mcp

import (
	"encoding/json"
	"log/slog"
)

// What a transport needs from a Server beyond Connect, which serves a
// session on a transport.Stream over any transport.Framer. A transport
// that multiplexes sessions, such as Streamable HTTP (package mcp/mcphttp),
// also reads protocol metadata outside the message body, must refuse what
// the server cannot serve before a session sees it, and should log where
// the server logs.

// Logger returns the logger the server reports to: ServerOptions.Logger,
// or slog.Default() when that was nil.
func (s *Server) Logger() *slog.Logger { return s.log }

// CheckVersion returns nil if the server offers protocol revision v, and
// otherwise the error that refuses it: CodeUnsupportedProtocolVersion
// with the offered revisions in its data (UnsupportedVersionData). It is
// for versions named outside a message, such as in an HTTP header; the
// server checks the versions inside messages itself. A refusal is an
// *Error (errors.As finds it), which is what a response carries.
func (s *Server) CheckVersion(v string) error {
	if s.supports(v) {
		return nil
	}
	return s.unsupported(v)
}

// ToolInputSchema returns the input schema of the named tool, for
// transports that check what travels beside the body (the Mcp-Param-*
// headers of Streamable HTTP). The schema must not be modified.
func (s *Server) ToolInputSchema(name string) (json.RawMessage, bool) {
	st, ok := s.tools.get(name)
	if !ok {
		return nil, false
	}
	return st.tool.InputSchema, true
}
