package echo

import (
	"regexp"
	"strings"
)

// Secrets inside text: a command line, a URL, a connection string, a
// header line, JSON quoted inside a string.
var (
	// scheme://user:password@host
	userinfoRE = regexp.MustCompile(`(?i)([a-z][a-z0-9+.-]*://[^\s:/@?#]*:)([^\s@/?#]+)@`)
	// Bearer abc, Basic abc, token abc (an authorization value)
	schemeRE = regexp.MustCompile(`(?i)\b(bearer|basic|digest|token)(\s+)([^\s,;"']+)`)
	// "name": "value" (JSON quoted inside a string)
	quotedRE = regexp.MustCompile(`"([^"\\]{1,64})"(\s*:\s*)"((?:[^"\\]|\\.)*)"`)
	// name=value, --name=value, ?name=value&
	// (A name is a whole run of name characters: a counted repeat such as
	// {1,64} made the matcher try every position of a long run, 0.3 s per
	// 100 KB of letters, per regexp.)
	assignRE = regexp.MustCompile(`([A-Za-z0-9_.-]+)(\s*=\s*)("[^"]*"|'[^']*'|[^\s&;,"']+)`)
	// Name: value (a header or YAML line; not scheme://)
	colonRE = regexp.MustCompile(`([A-Za-z0-9_.-]+)(:[ \t]*)("[^"]*"|'[^']*'|[^\s/&;,"'][^\s&;,"']*)`)
	// --name value, -name value (a flag, then its value as the next word)
	flagRE = regexp.MustCompile(`(^|\s)(--?[A-Za-z][A-Za-z0-9_-]{0,63})(\s+)("[^"]*"|'[^']*'|[^\s"'-][^\s"']*)`)
	// ?code=... an OAuth authorization code in a redirect URL
	codeRE = regexp.MustCompile(`([?&]code=)([^&#\s"']+)`)
	// -u user:password, --user=user:password (curl, wget and others)
	userFlagRE = regexp.MustCompile(`(^|\s)(-u|--user)(\s+|=)([^\s:"']*:)([^\s"']+)`)
)

// Scrub masks the secrets that text carries inside it: the password of a
// URL's user info, the credential after Bearer/Basic/Digest/token, an
// OAuth code in a query (?code=), the password of -u user:password, and
// the value of every name=value, name: value, "name":"value" or
// --name value whose name is Sensitive. The rest is kept.
func (e *Echo) Scrub(s string) string {
	if s == "" {
		return s
	}
	s = userinfoRE.ReplaceAllString(s, "${1}"+Masked+"@")
	s = schemeRE.ReplaceAllString(s, "${1}${2}"+Masked)
	s = codeRE.ReplaceAllString(s, "${1}"+Masked)
	s = userFlagRE.ReplaceAllString(s, "${1}${2}${3}${4}"+Masked)
	s = quotedRE.ReplaceAllStringFunc(s, func(m string) string {
		g := quotedRE.FindStringSubmatch(m)
		if !e.Sensitive(g[1]) {
			return m
		}
		return `"` + g[1] + `"` + g[2] + `"` + Masked + `"`
	})
	for _, re := range []*regexp.Regexp{assignRE, colonRE} {
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			g := re.FindStringSubmatch(m)
			if !e.Sensitive(g[1]) || g[3] == Masked || g[3] == `"`+Masked+`"` {
				return m
			}
			return g[1] + g[2] + Masked
		})
	}
	s = flagRE.ReplaceAllStringFunc(s, func(m string) string {
		g := flagRE.FindStringSubmatch(m)
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
