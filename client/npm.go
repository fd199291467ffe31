package client

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
)

// Causes of a failed npx start, recognised in npm's error output. An error
// from Launch of an npx Command matches one of them (errors.Is) when npm
// said why it could not fetch the package; the message names the cause
// and what to do.
var (
	// ErrNpmCertificate: npm did not trust the registry's TLS
	// certificate, as behind a TLS-intercepting proxy.
	ErrNpmCertificate = errors.New("npm does not trust the registry's TLS certificate")
	// ErrNpmNetwork: npm could not reach the registry (connection
	// refused, name not resolved, timed out, proxy refused).
	ErrNpmNetwork = errors.New("npm could not reach the registry")
	// ErrNpmNotFound: the registry has no such package or version.
	ErrNpmNotFound = errors.New("npm package not found")
	// ErrNpmAuth: the registry wants credentials it did not get.
	ErrNpmAuth = errors.New("the npm registry refused access")
)

// npmError is a recognised cause of a failed npx start.
type npmError struct {
	cause error  // one of the ErrNpm* sentinels
	code  string // npm's code, e.g. SELF_SIGNED_CERT_IN_CHAIN
	hint  string // what to do
}

func (e *npmError) Error() string {
	return e.cause.Error() + " (" + e.code + "): " + e.hint
}

func (e *npmError) Unwrap() error { return e.cause }

// npmCode finds npm's error code: "npm error code X" (npm 10 and later)
// or "npm ERR! code X" (before).
var npmCode = regexp.MustCompile(`(?m)^npm (?:error|ERR!) code (\S+)`)

// The codes of each cause: npm's own (E404, E401...) and Node's TLS and
// socket codes, which npm reports as its code.
var (
	certCodes = []string{"SELF_SIGNED_CERT_IN_CHAIN", "DEPTH_ZERO_SELF_SIGNED_CERT", "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
		"UNABLE_TO_GET_ISSUER_CERT", "UNABLE_TO_VERIFY_LEAF_SIGNATURE", "CERT_HAS_EXPIRED", "CERT_NOT_YET_VALID",
		"ERR_TLS_CERT_ALTNAME_INVALID", "CERT_UNTRUSTED"}
	netCodes = []string{"ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENOTFOUND", "EAI_AGAIN", "ENETUNREACH",
		"EHOSTUNREACH", "ERR_SOCKET_TIMEOUT", "EPROXY", "E407", "ECONNABORTED"}
	notFoundCodes = []string{"E404", "ETARGET"}
	authCodes     = []string{"E401", "E403", "EAUTHUNKNOWN", "ENEEDAUTH"}
)

// npmCause recognises why npx failed from the end of its stderr; nil if
// it cannot tell. proxied says whether the child had a proxy variable, so
// that the hint points at it or at its absence. Only npm's code line is
// read, then, for output that has none, the codes anywhere in the text.
func npmCause(stderr []byte, proxied bool) error {
	var code string
	if m := npmCode.FindAllSubmatch(stderr, -1); len(m) > 0 {
		code = string(m[len(m)-1][1])
	}
	find := func(codes []string) string {
		for _, c := range codes {
			if code == c {
				return c
			}
		}
		if code != "" {
			return ""
		}
		for _, c := range codes {
			if bytes.Contains(stderr, []byte(c)) {
				return c
			}
		}
		return ""
	}
	if c := find(certCodes); c != "" {
		return &npmError{ErrNpmCertificate, c, "if a proxy inspects TLS, point npm_config_cafile (for npm) and NODE_EXTRA_CA_CERTS (for the server) at its CA certificate file; children inherit both by default"}
	}
	if c := find(notFoundCodes); c != "" {
		return &npmError{ErrNpmNotFound, c, "check the package name and version, and npm_config_registry if you use a private registry"}
	}
	if c := find(authCodes); c != "" {
		return &npmError{ErrNpmAuth, c, "a private registry or package needs a token: pass it in the server's env (credentials are not inherited)"}
	}
	if c := find(netCodes); c != "" {
		hint := "behind a proxy? set HTTPS_PROXY (and NO_PROXY), which children inherit by default"
		if proxied {
			hint = "check the proxy in HTTPS_PROXY / HTTP_PROXY, and NO_PROXY"
		}
		return &npmError{ErrNpmNetwork, c, hint}
	}
	return nil
}

// hasProxy reports whether an environment sets a proxy for npm.
func hasProxy(env []string) bool {
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(k) {
		case "HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NPM_CONFIG_PROXY", "NPM_CONFIG_HTTPS_PROXY":
			if v != "" {
				return true
			}
		}
	}
	return false
}
