package gateway

import "strings"

// globMatch reports whether s matches pattern, where "*" matches any run
// of characters (including none, and "/") and "?" exactly one character.
// Unlike path.Match it has no character classes and no escapes: tool names
// are matched, not files.
func globMatch(pattern, s string) bool {
	// Iterative matching with one backtrack point: linear in practice,
	// never exponential.
	p, n := []rune(pattern), []rune(s)
	pi, ni := 0, 0
	star, mark := -1, 0
	for ni < len(n) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == n[ni]):
			pi++
			ni++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, ni
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			ni = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// toolPattern matches a "server/tool" pattern against a server and a tool:
// the pattern's first "/" separates the two; a pattern without "/" is a
// server pattern and matches all its tools.
func toolPattern(pattern, server, tool string) bool {
	sp, tp, ok := strings.Cut(pattern, "/")
	if !ok {
		tp = "*"
	}
	return globMatch(sp, server) && globMatch(tp, tool)
}
