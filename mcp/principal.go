package mcp

// BindPrincipal records who the session's requests come from, as the
// transport's authorization established it: an opaque key, equal for the
// same user through the same client (mcphttp binds the verified token's
// subject and client). Tasks are bound to it, as the tasks specification
// requires of a server that has an authorization context: a task started
// under one principal does not exist for requests under another, whatever
// they know of its ID. A transport calls it before it delivers the
// session's first message; a session never bound has principal "", and
// its tasks are visible to other unbound requests only.
func (ss *ServerSession) BindPrincipal(principal string) {
	ss.mu.Lock()
	ss.principal = principal
	ss.mu.Unlock()
}

// boundPrincipal is the session's principal ("" when none was bound).
func (ss *ServerSession) boundPrincipal() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.principal
}

// SetAuth records what the transport's authorization verified of the
// session's latest request (mcphttp keeps its *AuthInfo here, for
// mcphttp.SessionAuth). It lives as long as the session value, not its
// connection: a task's handler runs on after the request that started it
// has ended, and must still see whom it runs for.
func (ss *ServerSession) SetAuth(v any) {
	ss.mu.Lock()
	ss.auth = v
	ss.mu.Unlock()
}

// Auth returns what SetAuth last recorded, or nil.
func (ss *ServerSession) Auth() any {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.auth
}
