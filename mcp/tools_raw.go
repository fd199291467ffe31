package mcp

// AddToolRaw registers a tool whose handler checks its own arguments,
// replacing any tool of the same name. The server lists t.InputSchema as
// given but neither compiles nor enforces it; the arguments reach the
// handler as the client sent them (valid JSON). It is for proxies, whose
// schemas come from another server and may use keywords, references or
// dialects this server's validator does not accept, and which validate
// against a schema other than the one they list. A nil InputSchema is
// listed as any object.
func (s *Server) AddToolRaw(t *Tool, h ToolHandler) {
	st := newServerTool(t, h)
	st.raw = true
	st.once.Do(func() {}) // nothing to compile
	s.addTool(st)
}

// unknownTool is the stand-in that ServerOptions.UnknownTool answers
// through.
func unknownTool(name string, h ToolHandler) *serverTool {
	st := newServerTool(&Tool{Name: name}, h)
	st.raw = true
	st.once.Do(func() {})
	return st
}
