package echo

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
)

// maxDepth bounds the nesting the echo renders; deeper JSON is not shown.
const maxDepth = 100

var errTooDeep = errors.New("nested too deeply")

// node is a JSON value as the echo renders it, members in their order.
type node struct {
	kind byte   // '{', '[', '"' string, '0' number, 'l' literal (true, false, null)
	text string // a string's value, a number's or literal's text
	keys []string
	vals []*node
	open bool // the input ended inside it
}

// parseJSON reads one JSON value. On a capture cut short it returns what
// was read, open, and io.ErrUnexpectedEOF; on invalid JSON, an error.
func parseJSON(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := parseValue(dec, 0)
	if err != nil {
		return n, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return n, errors.New("more than one value")
	}
	return n, nil
}

func parseValue(dec *json.Decoder, depth int) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, eofIsUnexpected(err)
	}
	return parseFrom(dec, tok, depth)
}

func parseFrom(dec *json.Decoder, tok json.Token, depth int) (*node, error) {
	switch t := tok.(type) {
	case json.Delim:
		if depth >= maxDepth {
			return nil, errTooDeep
		}
		n := &node{kind: byte(t)}
		for {
			tok, err := dec.Token()
			if err != nil {
				n.open = true
				return n, eofIsUnexpected(err)
			}
			if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
				return n, nil
			}
			if n.kind == '{' {
				k, _ := tok.(string)
				n.keys = append(n.keys, k)
				v, err := parseValue(dec, depth+1)
				if v == nil {
					v = &node{kind: 'l', text: "…"}
				}
				n.vals = append(n.vals, v)
				if err != nil {
					n.open = true
					return n, err
				}
				continue
			}
			v, err := parseFrom(dec, tok, depth+1)
			if v != nil {
				n.vals = append(n.vals, v)
			}
			if err != nil {
				n.open = true
				return n, err
			}
		}
	case string:
		return &node{kind: '"', text: t}, nil
	case json.Number:
		return &node{kind: '0', text: t.String()}, nil
	case bool:
		return &node{kind: 'l', text: strconv.FormatBool(t)}, nil
	default:
		return &node{kind: 'l', text: "null"}, nil
	}
}

func eofIsUnexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

var maskedNode = &node{kind: '"', text: Masked}

// mask replaces the secrets in n: the value of every member whose name is
// Sensitive, every value under env and headers, the "value" beside a
// "name" that is Sensitive ({"name":"DB_PASS","value":"..."}), the
// argument after a flag that is ("--password", "..."), and secrets inside
// strings (Scrub).
func (e *Echo) mask(n *node) { e.maskAt(n, 0) }

// maskAt masks n, found level quotings deep inside strings.
func (e *Echo) maskAt(n *node, level int) {
	switch n.kind {
	case '"':
		n.text = e.scrubNested(n.text, level)
	case '{':
		// An object whose naming member (name, key, header, ...) names a
		// secret holds that secret in its other members, whatever they are
		// called (value, val, content): only the naming members show.
		secretPair, grant := false, false
		for i, k := range n.keys {
			grant = grant || normalizeName(k) == "granttype"
			if namingKeys[normalizeName(k)] && n.vals[i].kind == '"' && e.Sensitive(n.vals[i].text) {
				secretPair = true
			}
		}
		for i, k := range n.keys {
			switch {
			case secretPair && namingKeys[normalizeName(k)] && n.vals[i].kind == '"':
				// The name of the secret, shown.
			case secretPair:
				maskAll(n.vals[i])
			case e.Sensitive(k), grant && normalizeName(k) == "code":
				// An OAuth token request's code is a secret; elsewhere
				// "code" is an error code or source text.
				n.vals[i] = maskedNode
			case maskAllUnder(k):
				maskAll(n.vals[i])
			default:
				e.maskAt(n.vals[i], level)
			}
		}
	case '[':
		// A pair ["X-Api-Key", "..."] is a name and its value, as in a
		// header list.
		if len(n.vals) == 2 && n.vals[0].kind == '"' && isName(n.vals[0].text) && e.Sensitive(n.vals[0].text) {
			maskAll(n.vals[1])
			return
		}
		afterFlag, afterUser := false, false
		for i, v := range n.vals {
			if afterUser && v.kind == '"' {
				if u, _, ok := strings.Cut(v.text, ":"); ok {
					n.vals[i] = &node{kind: '"', text: u + ":" + Masked}
					afterUser, afterFlag = false, false
					continue
				}
			}
			afterUser = v.kind == '"' && (v.text == "-u" || v.text == "--user")
			if afterFlag && v.kind != '{' && v.kind != '[' {
				n.vals[i] = maskedNode
				afterFlag = false
				continue
			}
			afterFlag = v.kind == '"' && e.Sensitive(flagName(v.text))
			e.maskAt(v, level)
		}
	}
}

// isName reports whether s reads as a bare name (X-Api-Key, DB_PASS), not
// a flag, an assignment or text.
func isName(s string) bool {
	return s != "" && s[0] != '-' && !strings.ContainsAny(s, "= \t:")
}

// maxNested bounds how many times JSON quoted inside a string inside a
// string is unwrapped. Each level at least doubles the escapes, so a
// bounded capture bounds it anyway; this keeps the work small.
const maxNested = 8

// scrubNested masks a string value. A string that is itself JSON (a tool
// result's text, an argument passed as serialised JSON, and so on at any
// depth of quoting) is masked as JSON, so its member names count as they
// would unquoted; other text goes through Scrub.
func (e *Echo) scrubNested(s string, level int) string {
	t := strings.TrimSpace(s)
	if level < maxNested && len(t) > 1 && (t[0] == '{' || t[0] == '[') {
		if n, err := parseJSON([]byte(t)); err == nil {
			e.maskAt(n, level+1)
			var b strings.Builder
			render(&b, n)
			return b.String()
		}
	}
	return e.Scrub(s)
}

// maskAll masks every value of an environment or a header set: the value
// of each member, the part after '=' of each NAME=value string of a list,
// and a scalar whole.
func maskAll(n *node) {
	switch n.kind {
	case '{':
		for i, v := range n.vals {
			if v.kind == '[' || v.kind == '{' {
				maskAll(v)
			} else {
				n.vals[i] = maskedNode
			}
		}
	case '[':
		for i, v := range n.vals {
			switch {
			case v.kind == '"' && strings.Contains(v.text, "="):
				name, _, _ := strings.Cut(v.text, "=")
				n.vals[i] = &node{kind: '"', text: name + "=" + Masked}
			case v.kind == '{' || v.kind == '[':
				maskAll(v)
			default:
				n.vals[i] = maskedNode
			}
		}
	default:
		*n = *maskedNode
	}
}

// render writes n as compact JSON; an open container is left unclosed.
func render(b *strings.Builder, n *node) {
	switch n.kind {
	case '"':
		enc, _ := json.Marshal(n.text)
		b.Write(enc)
	case '0', 'l':
		b.WriteString(n.text)
	case '{', '[':
		b.WriteByte(n.kind)
		for i, v := range n.vals {
			if i > 0 {
				b.WriteByte(',')
			}
			if n.kind == '{' {
				enc, _ := json.Marshal(n.keys[i])
				b.Write(enc)
				b.WriteByte(':')
			}
			render(b, v)
		}
		if !n.open {
			if n.kind == '{' {
				b.WriteByte('}')
			} else {
				b.WriteByte(']')
			}
		}
	}
}

// maskJSON renders JSON compactly with its secrets masked. A capture cut
// short (truncated true) renders as far as it goes. Anything that is not
// JSON is not rendered at all: ok is false and out is empty, since what
// cannot be parsed cannot be masked either.
func (e *Echo) maskJSON(data []byte, truncated bool) (out string, ok bool) {
	n, err := parseJSON(data)
	if err != nil && !(truncated && errors.Is(err, io.ErrUnexpectedEOF) && n != nil) {
		return "", false
	}
	e.mask(n)
	var b strings.Builder
	render(&b, n)
	return b.String(), true
}

// unparsed is what the echo shows instead of a body it cannot parse: its
// length and why, never its bytes.
func unparsed(data []byte, total int64) string {
	why := "not valid JSON"
	t := bytes.TrimLeft(data, " \t\r\n")
	switch {
	case bytes.HasPrefix(t, []byte("\xef\xbb\xbf")):
		why = "JSON behind a UTF-8 byte order mark"
	case len(t) > 0 && looksFormEncoded(t):
		why = "form-encoded or other non-JSON text"
	}
	return "[body not shown: " + strconv.FormatInt(total, 10) + " bytes, " + why + "]"
}

// looksFormEncoded reports whether b reads like name=value&name=value.
func looksFormEncoded(b []byte) bool {
	first, _, _ := bytes.Cut(b, []byte("&"))
	name, _, ok := bytes.Cut(first, []byte("="))
	return ok && len(name) > 0 && !bytes.ContainsAny(name, " {[\"")
}
