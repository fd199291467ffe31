package oauth

import (
	"net/http"
	"strings"
)

// Challenge is one WWW-Authenticate challenge of a resource server
// (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9728 §5.1).
type Challenge struct {
	Scheme string            // "Bearer" or "DPoP", as sent
	Params map[string]string // auth-params, names lower-cased
}

// ResourceMetadata is the resource_metadata URL of the challenge, if any.
func (c Challenge) ResourceMetadata() string { return c.Params["resource_metadata"] }

// Scope is the space-separated scope the challenge asks for, if any.
func (c Challenge) Scope() string { return c.Params["scope"] }

// Error is the OAuth error code of the challenge (invalid_token,
// insufficient_scope, use_dpop_nonce), if any.
func (c Challenge) Error() string { return c.Params["error"] }

// ParseChallenges reads every challenge of the WWW-Authenticate headers
// of h. Malformed parts are skipped: a hostile server can make discovery
// fail, never panic.
func ParseChallenges(h http.Header) []Challenge {
	var out []Challenge
	for _, v := range h.Values("WWW-Authenticate") {
		out = append(out, parseChallengeHeader(v)...)
	}
	return out
}

// parseChallengeHeader splits one header value: a scheme token starts a
// challenge; name=value pairs (value a token or a quoted string) follow,
// separated by commas.
//
// A parameter that occurs twice in one challenge is dropped: RFC 9110
// §11.2 allows it once, and with two, a proxy or log may read one while
// the client would use the other (a second resource_metadata, say).
func parseChallengeHeader(s string) []Challenge {
	var out []Challenge
	var cur *Challenge
	var dup map[int][]string // by index in out: the names seen twice
	for {
		s = strings.TrimLeft(s, " \t,")
		if s == "" {
			break
		}
		// A token, then either "=" (a parameter) or space/comma/end (a scheme).
		i := 0
		for i < len(s) && isTokenChar(s[i]) {
			i++
		}
		if i == 0 {
			s = s[1:] // skip a stray character
			continue
		}
		name := s[:i]
		rest := strings.TrimLeft(s[i:], " \t")
		if strings.HasPrefix(rest, "=") && cur != nil && !strings.HasPrefix(rest, "==") {
			rest = strings.TrimLeft(rest[1:], " \t")
			var val string
			val, s = readParamValue(rest)
			name = strings.ToLower(name)
			if _, seen := cur.Params[name]; seen {
				if dup == nil {
					dup = map[int][]string{}
				}
				dup[len(out)-1] = append(dup[len(out)-1], name)
			}
			cur.Params[name] = val
			continue
		}
		if strings.HasPrefix(rest, "=") {
			// token68 after a scheme (or garbage before one): skip to the
			// next comma.
			if j := strings.IndexByte(rest, ','); j >= 0 {
				s = rest[j:]
			} else {
				s = ""
			}
			continue
		}
		out = append(out, Challenge{Scheme: name, Params: map[string]string{}})
		cur = &out[len(out)-1]
		s = rest
	}
	for i, names := range dup {
		for _, n := range names {
			delete(out[i].Params, n)
		}
	}
	return out
}

func readParamValue(s string) (val, rest string) {
	if strings.HasPrefix(s, `"`) {
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				if i+1 < len(s) {
					i++
					b.WriteByte(s[i])
				}
			case '"':
				return b.String(), s[i+1:]
			default:
				b.WriteByte(s[i])
			}
		}
		return b.String(), "" // unterminated: take what there is
	}
	i := 0
	for i < len(s) && s[i] != ',' && s[i] != ' ' && s[i] != '\t' {
		i++
	}
	return s[:i], s[i:]
}

func isTokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// challengeFor returns the challenge a client holding scheme should heed:
// the first of the same scheme, else the first Bearer or DPoP one.
func challengeFor(cs []Challenge, scheme string) Challenge {
	for _, c := range cs {
		if strings.EqualFold(c.Scheme, scheme) {
			return c
		}
	}
	for _, c := range cs {
		if strings.EqualFold(c.Scheme, "Bearer") || strings.EqualFold(c.Scheme, "DPoP") {
			return c
		}
	}
	return Challenge{Params: map[string]string{}}
}
