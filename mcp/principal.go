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
