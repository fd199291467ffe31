package jsonscan

// Interned is a set of strings that UnquoteInterned returns without
// allocating. Why: a JSON-RPC message repeats the same few short strings
// on every request (its method, the protocol version, a result type), and
// copying each out of the message was an allocation per string per call.
type Interned struct {
	m   map[string]string
	max int // the longest member's length: longer text is not looked up
}

// NewInterned returns the set of strings ss.
func NewInterned(ss ...string) *Interned {
	t := &Interned{m: make(map[string]string, len(ss))}
	for _, s := range ss {
		t.m[s] = s
		t.max = max(t.max, len(s))
	}
	return t
}

// UnquoteInterned is Unquote, returning the member of t for a string that
// is one. A token with escapes decodes as by Unquote: a member of t has no
// quote or backslash, so its text is the token's text as it stands.
func (t *Interned) UnquoteInterned(s []byte) (string, bool) {
	if n := len(s); n >= 2 && n-2 <= t.max && s[0] == '"' && s[n-1] == '"' {
		// The map index of a converted []byte does not allocate.
		if v, ok := t.m[string(s[1:n-1])]; ok {
			return v, true
		}
	}
	return Unquote(s)
}
