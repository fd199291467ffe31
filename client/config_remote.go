package client

import (
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/winbridge/winbridge/internal/jsonwalk"
	"github.com/winbridge/winbridge/internal/urlshow"
)

// ErrRemoteServer is returned by a Manager for a configured "url"
// server: the Manager runs stdio servers only (this package does not
// link net/http). Connect such a server with mcp/mcphttp.
var ErrRemoteServer = errors.New(`client: a "url" server (Streamable HTTP); the Manager runs stdio servers only`)

// maxHeaders bounds the "headers" of one entry; a header value is at most
// maxHeaderValue bytes. Real configurations carry a handful of short
// headers; the bounds keep a hostile file from making every request huge.
const (
	maxHeaders     = 64
	maxHeaderValue = 8 << 10
)

// remote parses the fields of a Streamable HTTP server ("url").
func (p *configParser) remote(path string, m map[string]any, sc *ServerConfig) {
	up := member(path, "url")
	if s, ok := p.String(up, m["url"]); ok {
		p.noHostVars(up, s, false)
		// The value is never repeated whole: a URL that fails a check may
		// still carry a password or a token (htps://me:pw@h, a space in the
		// host, a bad escape after the password, a token in the path or
		// query), and url.Parse's own error quotes all of it. Only the
		// scheme and host of one that parsed are shown.
		switch u, err := url.Parse(s); {
		case err != nil:
			p.Fail(up, "want an http or https URL; this one does not parse (not shown: it may hold a credential)")
		case u.User != nil:
			// Credentials in the URL end up in every message that names
			// the endpoint; a header is not printed.
			p.Fail(up, "has a user:password part; send credentials in \"headers\" instead")
		case u.Scheme != "http" && u.Scheme != "https":
			p.Fail(up, "want an http or https URL, got %q", urlshow.URL(u))
		case u.Host == "":
			p.Fail(up, "want an http or https URL, got one without a host")
		default:
			sc.URL = s
		}
	}
	if _, ok := m["command"]; ok {
		p.Fail(path, "has both \"command\" and \"url\"")
	}
	for _, k := range []string{"args", "env", "cwd"} {
		if _, ok := m[k]; ok {
			p.Fail(member(path, k), "only for a server run as a \"command\", not with \"url\"")
		}
	}
	if raw, ok := m["type"]; ok {
		if s, _ := raw.(string); !httpType(s) {
			p.Fail(member(path, "type"), "want \"http\", \"streamable-http\" or \"streamableHttp\" with \"url\" (SSE servers are not supported), got %s", jsonValue(raw))
		}
	}
	raw, ok := m["headers"]
	if !ok {
		return
	}
	hp := member(path, "headers")
	hm, ok := p.Object(hp, raw)
	if !ok {
		return
	}
	if len(hm) > maxHeaders {
		p.Fail(hp, "%d headers; at most %d", len(hm), maxHeaders)
		return
	}
	names := make([]string, 0, len(hm))
	for k := range hm {
		names = append(names, k)
	}
	slices.Sort(names)
	sc.Headers = map[string]string{}
	seen := map[string]string{}
	for _, k := range names {
		kp := member(hp, k)
		v, ok := p.String(kp, hm[k])
		switch {
		case !ok:
		case !validHeaderName(k):
			// Shown up to the first character a name cannot have: a whole
			// header line written as the name ("Authorization: Bearer
			// TOKEN") has its credential after it.
			shown := k
			if i := strings.IndexFunc(k, func(r rune) bool { return r > 0x7f || !validHeaderName(string(r)) }); i >= 0 {
				shown = k[:i] + "…"
			}
			p.Fail(hp, "invalid header name %q", shown)
		case seen[strings.ToLower(k)] != "":
			p.Fail(kp, "the same header as %q", seen[strings.ToLower(k)])
		case len(v) > maxHeaderValue:
			p.Fail(kp, "value of %d bytes; at most %d", len(v), maxHeaderValue)
		case !validHeaderValue(v):
			// The value is likely a credential: say what is wrong with it,
			// not what it is.
			p.Fail(kp, "value has a control character (CR, LF, NUL, ...)")
		case anyHostVar.MatchString(v):
			p.noHostVars(kp, v, false)
		default:
			seen[strings.ToLower(k)] = k
			sc.Headers[k] = v
		}
	}
}

// httpType reports whether a server's "type" names Streamable HTTP, as
// the hosts whose configs this package reads spell it: "http" (Claude
// Code, VS Code, Cursor), "streamable-http" (the TypeScript SDK's
// transport name, used by several gateways), "streamableHttp" (Cline).
func httpType(s string) bool {
	return s == "http" || s == "streamable-http" || s == "streamableHttp"
}

// jsonValue shows a decoded JSON scalar in a message, or its type.
func jsonValue(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return jsonwalk.TypeName(v)
}

// validHeaderName reports whether k is an HTTP field name: a token of
// RFC 9110 §5.6.2.
func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// validHeaderValue reports whether v can be sent as a field value: no
// control characters but tab (RFC 9110 §5.5), so no CR or LF that would
// start another header.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}
