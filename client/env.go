package client

import (
	"os"
	"runtime"
	"strings"
)

// The variables a child server inherits by default. The TypeScript SDK
// passes only what a program needs to find its tools and its home; that
// is not enough on real networks: behind a TLS-intercepting proxy `npx`
// fails with SELF_SIGNED_CERT_IN_CHAIN without NODE_EXTRA_CA_CERTS, it
// cannot reach the registry at all without HTTPS_PROXY, and under wine a
// missing LANG garbles non-ASCII arguments. So the network, certificate,
// locale and temporary-directory settings pass too. Nothing here is meant
// to hold a secret; a proxy URL may carry a user name and password, which
// the child needs to reach the network as this process does.
var (
	// homeEnv: finding programs, the home directory and the user.
	posixHomeEnv   = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}
	windowsHomeEnv = []string{"APPDATA", "COMSPEC", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PATHEXT",
		"PROCESSOR_ARCHITECTURE", "PROGRAMDATA", "PROGRAMFILES", "PROGRAMFILES(X86)", "PROGRAMW6432",
		"SYSTEMDRIVE", "SYSTEMROOT", "USERNAME", "USERPROFILE", "WINDIR"}

	// networkEnv: proxies (curl's names, which Node, npm, Python, Go and
	// git read; lower case is the older convention and some tools read
	// only it), certificate bundles, and npm's own proxy and certificate
	// settings (npm reads npm_config_* in any case). The switches that turn
	// certificate checks off (NODE_TLS_REJECT_UNAUTHORIZED,
	// npm_config_strict_ssl) are left out: trusting the proxy's CA is the
	// fix, and turning verification off for every server should be said
	// per server, in its env.
	networkEnv = []string{
		"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy",
		"NODE_EXTRA_CA_CERTS", "NODE_USE_ENV_PROXY",
		"SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO",
		"npm_config_proxy", "npm_config_https_proxy", "npm_config_noproxy", "npm_config_cafile",
		"npm_config_registry",
	}

	// localeEnv: the language and time zone of messages and arguments,
	// and where temporary files go. The LC_ names are the POSIX and glibc
	// locale categories only, not a prefix: sshd accepts LC_* from the
	// client by default, so people smuggle other values (LC_GH_PAT) under
	// LC_ names, and those must not reach every server.
	localeEnv = []string{"LANG", "LANGUAGE", "TZ", "TMPDIR", "TMP", "TEMP",
		"LC_ALL", "LC_ADDRESS", "LC_COLLATE", "LC_CTYPE", "LC_IDENTIFICATION", "LC_MEASUREMENT",
		"LC_MESSAGES", "LC_MONETARY", "LC_NAME", "LC_NUMERIC", "LC_PAPER", "LC_TELEPHONE", "LC_TIME"}
)

// inheritedName reports whether a variable of this process passes to a
// child by default. Names compare without case on Windows, as the system
// does; on POSIX the proxy variables pass in both cases and nothing else
// changes case. A name that looks like a credential never passes, whatever
// list it would match (a stray LC_API_TOKEN is still a token).
func inheritedName(name string, windows bool) bool {
	if name == "" || looksSecret(name) {
		return false
	}
	home := posixHomeEnv
	if windows {
		home = windowsHomeEnv
	}
	eq := func(a, b string) bool { return a == b }
	if windows {
		eq = strings.EqualFold
	}
	// npm reads its npm_config_* settings in either case.
	if len(name) > len("npm_config_") && strings.EqualFold(name[:len("npm_config_")], "npm_config_") {
		eq = strings.EqualFold
	}
	for _, list := range [][]string{home, networkEnv, localeEnv} {
		for _, k := range list {
			if eq(name, k) {
				return true
			}
		}
	}
	return false
}

// secretWords are the parts of a name that mark a credential.
var secretWords = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASS", "PWD", "CREDENTIAL", "CREDS", "AUTH", "APIKEY", "API_KEY", "PRIVATE", "SESSION", "COOKIE"}

// looksSecret reports whether a variable's name suggests it holds a
// credential: it contains TOKEN, SECRET, PASS, AUTH, API_KEY, ... in any
// case and anywhere (npm's "_authToken" counts). A false match only keeps a
// harmless variable back; Command.Env passes it if a server needs it.
func looksSecret(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}

// DefaultEnv returns the part of this process's environment that a child
// server inherits unless Command.InheritEnv is set:
//
//   - to find programs and the home directory: HOME, LOGNAME, PATH, SHELL,
//     TERM, USER (on Windows APPDATA, COMSPEC, HOMEDRIVE, HOMEPATH,
//     LOCALAPPDATA, PATH, PATHEXT, PROCESSOR_ARCHITECTURE, PROGRAMDATA,
//     PROGRAMFILES, PROGRAMFILES(X86), PROGRAMW6432, SYSTEMDRIVE,
//     SYSTEMROOT, USERNAME, USERPROFILE, WINDIR);
//   - the network: HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, NO_PROXY (in both
//     cases), NODE_EXTRA_CA_CERTS, NODE_USE_ENV_PROXY, SSL_CERT_FILE,
//     SSL_CERT_DIR, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE, GIT_SSL_CAINFO and
//     npm's npm_config_proxy, _https_proxy, _noproxy, _cafile and
//     _registry (not the switches that turn certificate checks off,
//     NODE_TLS_REJECT_UNAUTHORIZED and npm_config_strict_ssl);
//   - the locale and temporary files: LANG, LANGUAGE, the locale
//     categories LC_ALL, LC_CTYPE, LC_MESSAGES, ... (not other LC_
//     names), TZ, TMPDIR, TMP, TEMP.
//
// A name that looks like a credential (it contains TOKEN, SECRET,
// PASSWORD, PASS, PWD, CREDS, AUTH, API_KEY, CREDENTIAL, PRIVATE, SESSION or COOKIE)
// never passes, and neither does a value that starts with "()" (an
// exported shell function, an old attack vector). Command.Env adds what a
// server needs beyond this, such as its own token.
func DefaultEnv() []string {
	windows := runtime.GOOS == "windows"
	var env []string
	for _, kv := range os.Environ() {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.HasPrefix(v, "()") || !inheritedName(k, windows) {
			continue
		}
		env = append(env, kv)
	}
	return env
}
