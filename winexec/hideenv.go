package winexec

import (
	"os"
	"strings"
)

// inheritedEnv is this process's environment without the variables hide
// names (compared ignoring ASCII case, as Windows compares names): what
// a program may inherit from the server. The server's own secrets (its
// HTTP token, a Redis URL with a password) are read from the environment
// to keep them out of ps, and a program that prints its environment
// would otherwise hand them to whoever called it.
func inheritedEnv(hide []string) []string {
	env := os.Environ()
	if len(hide) == 0 {
		return env
	}
	out := env[:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !hidden(name, hide) {
			out = append(out, kv)
		}
	}
	return out
}

func hidden(name string, hide []string) bool {
	for _, h := range hide {
		if asciiLower(h) == asciiLower(name) {
			return true
		}
	}
	return false
}
