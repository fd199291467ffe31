package urlshow

import (
	"net/url"
	"strings"
)

// Hidden stands for what is left out: a path segment, an opaque part or
// a query. Plain ASCII, since the text ends up in Windows consoles and
// log files of any encoding.
const Hidden = "..."

// Invalid is the shown form of a string that is not a URL: the string
// itself may be a secret, or hold one.
const Invalid = "(invalid URL)"

// maxSegment bounds a shown path segment. Route words are short; keys and
// tokens long (a base32 key of 128 bits is 26 characters, hex 32, a
// UUID 36).
const maxSegment = 24

// URL returns the part of u that may be shown.
func URL(u *url.URL) string {
	var b strings.Builder
	if u.Scheme != "" {
		b.WriteString(u.Scheme)
		b.WriteString(":")
	}
	if u.Opaque != "" {
		b.WriteString(Hidden)
	} else {
		if u.Host != "" {
			b.WriteString("//")
			b.WriteString(u.Host)
		}
		writePath(&b, u.EscapedPath())
	}
	if u.RawQuery != "" || u.ForceQuery {
		b.WriteString("?" + Hidden)
	}
	return b.String()
}

// String parses s and returns the part of it that may be shown, or
// Invalid.
func String(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return Invalid
	}
	return URL(u)
}

// Error returns err with the URL that a *url.Error at its top names (as
// http.Client.Do, url.Parse and http.NewRequest return them) replaced by
// its shown form; any other error is returned as it is. The copy wraps
// the same Err, so errors.Is and errors.As find what they found before,
// the *url.Error included.
func Error(err error) error {
	ue, ok := err.(*url.Error)
	if !ok {
		return err
	}
	return &url.Error{Op: ue.Op, URL: String(ue.URL), Err: ue.Err}
}

// writePath writes the escaped path p with each segment that may be a
// credential replaced by Hidden.
func writePath(b *strings.Builder, p string) {
	if p == "" {
		return
	}
	for i, seg := range strings.Split(p, "/") {
		if i > 0 {
			b.WriteByte('/')
		}
		if Plain(seg) {
			b.WriteString(seg)
		} else {
			b.WriteString(Hidden)
		}
	}
}

// Plain reports whether the escaped path segment seg may be shown: empty,
// a version (v1, v2.0), or at most maxSegment bytes of lower-case letters
// and - _ . @ ~. A digit, an escape or an upper-case letter is taken for
// a credential (hunter2, a UUID, sk-ak-Zq81...): a false alarm costs a
// word of a message, a miss the key.
func Plain(seg string) bool {
	if len(seg) > maxSegment {
		return false
	}
	if version(seg) {
		return true
	}
	for i := 0; i < len(seg); i++ {
		switch c := seg[i]; {
		case c >= 'a' && c <= 'z', c == '-', c == '_', c == '.', c == '@', c == '~':
		default:
			return false
		}
	}
	return true
}

// version reports whether seg is a route's version: v, then up to four
// digits and dots, starting with a digit.
func version(seg string) bool {
	if len(seg) < 2 || len(seg) > 5 || seg[0] != 'v' || seg[1] < '0' || seg[1] > '9' {
		return false
	}
	for i := 2; i < len(seg); i++ {
		if c := seg[i]; c != '.' && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}
