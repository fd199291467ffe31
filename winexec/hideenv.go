package winexec

import (
	"os"
	"strings"
)

// inheritedEnv is this process's environment without the variables hide
// names and those whose name marks a credential (secretEnvName) unless
// pass names them, all compared ignoring ASCII case, as Windows compares
// names: what a program may inherit from the server. The server's own
// secrets (its HTTP token, a Redis URL with a password) are read from the
// environment to keep them out of ps, and people export tokens for other
// tools (GITHUB_TOKEN, OPENAI_API_KEY) in the shell that starts it; a
// program that prints its environment (env, cmd /c set, echo %NAME%)
// would hand either to whoever called it. pass "*" passes every name
// hide does not.
func inheritedEnv(hide, pass []string) []string {
	env := os.Environ()
	out := env[:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if hidden(name, hide) || secretEnvName(name) && !hidden(name, pass) && !hidden("*", pass) {
			continue
		}
		out = append(out, kv)
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

// secretSubstrings mark a credential wherever they stand in a name, in any
// case (githubToken, npm_config__authToken, AWS_SECRET_ACCESS_KEY).
var secretSubstrings = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL",
	"APIKEY", "API_KEY", "ACCESS_KEY", "ACCESSKEY", "PRIVATE_KEY", "PRIVATEKEY", "COOKIE",
	"CONNECTION_STRING", "CONNECTIONSTRING"}

// secretWords mark a credential as a whole word of a name (split at
// anything but letters and digits): as substrings they would also match
// GIT_AUTHOR_NAME, KEYBOARD_LAYOUT or a PATH.
var secretWords = map[string]bool{"KEY": true, "KEYS": true, "PAT": true, "PWD": true, "PASS": true,
	"DSN": true, "AUTH": true, "CREDS": true, "SAS": true}

// secretNames are credentials under names no rule above catches, as a
// run of words anywhere in a name (STAGING_DATABASE_URL): URLs that
// usually hold a password.
var secretNames = map[string]bool{"DATABASE_URL": true, "REDIS_URL": true, "MONGODB_URI": true, "MONGO_URL": true}

// secretEnvName reports whether a variable's name marks a credential. A
// false match only keeps a harmless variable from programs, which the
// operator passes by name (Config.PassEnv); PWD alone is the working
// directory.
func secretEnvName(name string) bool {
	up := strings.ToUpper(name)
	if up == "PWD" || up == "OLDPWD" {
		return false
	}
	words := strings.FieldsFunc(up, func(r rune) bool { return !('A' <= r && r <= 'Z' || '0' <= r && r <= '9') })
	joined := "_" + strings.Join(words, "_") + "_"
	for n := range secretNames {
		if strings.Contains(joined, "_"+n+"_") {
			return true
		}
	}
	for _, s := range secretSubstrings {
		if strings.Contains(up, s) {
			return true
		}
	}
	for _, w := range words {
		if secretWords[w] {
			return true
		}
	}
	return false
}
