package mcp

import "fmt"

// MaxToolNameLen is the longest tool name the specification allows.
const MaxToolNameLen = 128

// MaxPortableToolNameLen is the longest tool name every major host
// accepts: Claude Desktop, OpenAI function calling and Codex enforce
// ^[a-zA-Z0-9_-]{1,64}$.
const MaxPortableToolNameLen = 64

// checkToolName enforces the specification's rule on tool names (since
// 2025-11-25): 1 to 128 characters, each an ASCII letter, a digit, '_',
// '-' or '.'. Clients key calls, permissions and configuration on the
// name, so a server never sends one outside the rule.
func checkToolName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("a tool needs a name")
	case len(name) > MaxToolNameLen:
		return fmt.Errorf("tool name %.40q... has %d bytes, more than %d", name, len(name), MaxToolNameLen)
	}
	for i, r := range name {
		if !toolNameRune(r) && r != '.' {
			return fmt.Errorf("tool name %q: character %q at byte %d; names are A-Z a-z 0-9 _ - . only", name, r, i)
		}
	}
	return nil
}

// PortableToolName reports whether name matches ^[a-zA-Z0-9_-]{1,64}$,
// the strictest rule among major hosts. Claude Desktop withholds a
// server's whole tool list when one name fails it; OpenAI function names
// and Codex reject such names too.
func PortableToolName(name string) bool {
	if name == "" || len(name) > MaxPortableToolNameLen {
		return false
	}
	for _, r := range name {
		if !toolNameRune(r) {
			return false
		}
	}
	return true
}

func toolNameRune(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-'
}
