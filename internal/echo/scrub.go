package echo

import (
	"regexp"
	"strings"
	"sync"
)

// scrubRE holds the patterns for secrets inside text: a command line, a
// URL, a connection string, a header line, JSON quoted inside a string.
// They compile on first use, not at init: every program that links
// package transport links this one, and compiling them cost 0.4 ms of a
// server's start even when no echo was ever asked for.
type scrubRE struct {
	userinfo, scheme, quoted, assign, colon, flag, code, userFlag *regexp.Regexp
}

var scrubREs = sync.OnceValue(func() *scrubRE {
	return &scrubRE{
		// scheme://user:password@host
		userinfo: regexp.MustCompile(`(?i)([a-z][a-z0-9+.-]*://[^\s:/@?#]*:)([^\s@/?#]+)@`),
		// Bearer abc, Basic abc, token abc (an authorization value)
		scheme: regexp.MustCompile(`(?i)\b(bearer|basic|digest|token)(\s+)([^\s,;"']+)`),
		// "name": "value" (JSON quoted inside a string)
		quoted: regexp.MustCompile(`"([^"\\]{1,64})"(\s*:\s*)"((?:[^"\\]|\\.)*)"`),
		// name=value, --name=value, ?name=value&
		// (A name is a whole run of name characters: a counted repeat such
		// as {1,64} made the matcher try every position of a long run,
		// 0.3 s per 100 KB of letters, per regexp.)
		assign: regexp.MustCompile(`([A-Za-z0-9_.-]+)(\s*=\s*)("[^"]*"|'[^']*'|[^\s&;,"']+)`),
		// Name: value (a header or YAML line; not scheme://)
		colon: regexp.MustCompile(`([A-Za-z0-9_.-]+)(:[ \t]*)("[^"]*"|'[^']*'|[^\s/&;,"'][^\s&;,"']*)`),
		// --name value, -name value (a flag, then its value as the next word)
		flag: regexp.MustCompile(`(^|\s)(--?[A-Za-z][A-Za-z0-9_-]{0,63})(\s+)("[^"]*"|'[^']*'|[^\s"'-][^\s"']*)`),
		// ?code=... an OAuth authorization code in a redirect URL
		code: regexp.MustCompile(`([?&]code=)([^&#\s"']+)`),
		// -u user:password, --user=user:password (curl, wget and others)
		userFlag: regexp.MustCompile(`(^|\s)(-u|--user)(\s+|=)([^\s:"']*:)([^\s"']+)`),
	}
})

// Scrub masks the secrets that text carries inside it: the password of a
// URL's user info, the credential after Bearer/Basic/Digest/token, an
// OAuth code in a query (?code=), the password of -u user:password, and
// the value of every name=value, name: value, "name":"value" or
// --name value whose name is Sensitive. The rest is kept.
func (e *Echo) Scrub(s string) string {
	if s == "" {
		return s
	}
	re := scrubREs()
	s = re.userinfo.ReplaceAllString(s, "${1}"+Masked+"@")
	s = re.scheme.ReplaceAllString(s, "${1}${2}"+Masked)
	s = re.code.ReplaceAllString(s, "${1}"+Masked)
	s = re.userFlag.ReplaceAllString(s, "${1}${2}${3}${4}"+Masked)
	s = re.quoted.ReplaceAllStringFunc(s, func(m string) string {
		g := re.quoted.FindStringSubmatch(m)
		if !e.Sensitive(g[1]) {
			return m
		}
		return `"` + g[1] + `"` + g[2] + `"` + Masked + `"`
	})
	for _, kv := range []*regexp.Regexp{re.assign, re.colon} {
		s = kv.ReplaceAllStringFunc(s, func(m string) string {
			g := kv.FindStringSubmatch(m)
			if !e.Sensitive(g[1]) || g[3] == Masked || g[3] == `"`+Masked+`"` {
				return m
			}
			return g[1] + g[2] + Masked
		})
	}
	s = re.flag.ReplaceAllStringFunc(s, func(m string) string {
		g := re.flag.FindStringSubmatch(m)
		if !e.Sensitive(strings.TrimLeft(g[2], "-")) || g[4] == Masked {
			return m
		}
		return g[1] + g[2] + g[3] + Masked
	})
	return s
}

// flagName returns the name of a command-line flag (-p, --password) that
// takes its value as the next argument, or "" if s is not one.
func flagName(s string) string {
	if !strings.HasPrefix(s, "-") || strings.Contains(s, "=") || strings.ContainsAny(s, " \t") {
		return ""
	}
	return strings.TrimLeft(s, "-")
}
