package mcphttp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/winbridge/winbridge/internal/jsonscan"
	"github.com/winbridge/winbridge/mcp"
)

// checkParamHeaders checks the Mcp-Param-* headers of a 2026-07-28
// tools/call against its arguments (SEP-2243): every argument the tool's
// schema annotates with "x-mcp-header" travels in its header too, and the
// two must agree, since intermediaries route on the header and the server
// acts on the body. A header that is missing, that names an argument the
// body lacks, that differs from the body, or whose =?base64?...?= wrapper
// does not hold strict Base64 is a header mismatch.
func (h *Handler) checkParamHeaders(r *http.Request, m *rpcMessage) *httpError {
	if m.method != "tools/call" || !m.isRequest() {
		return nil
	}
	name, ok := m.nameValue()
	if !ok {
		return nil
	}
	schema, ok := h.srv.ToolInputSchema(name)
	if !ok || !bytes.Contains(schema, []byte("x-mcp-header")) {
		return nil // most tools have no annotation: no decoding
	}
	headers, err := toolParamHeaders(schema)
	if err != nil {
		// The server's own annotation is invalid: clients leave such a
		// tool out and never send its headers, so nothing can be checked.
		return nil
	}
	var args map[string]json.RawMessage
	rawArgs, _ := m.params.field("arguments")
	_ = json.Unmarshal(rawArgs, &args)
	mismatch := func(msg string) *httpError {
		return httpErr(http.StatusBadRequest, mcp.CodeHeaderMismatch, "header mismatch: "+msg).withID(m)
	}
	if param, ok := ambiguousArgument(rawArgs, headers); ok {
		return mismatch("argument " + strconv.Quote(param) + " appears more than once, or in another case")
	}
	for param, hname := range headers {
		field := "Mcp-Param-" + hname
		want, inBody := paramBodyValue(args[param])
		vs := r.Header.Values(field)
		switch {
		case len(vs) == 0 && inBody:
			return mismatch("missing " + field + " header for argument " + strconv.Quote(param))
		case len(vs) == 0:
			continue
		case len(vs) > 1:
			return mismatch("more than one " + field + " header")
		case !inBody:
			return mismatch(field + " header for argument " + strconv.Quote(param) + ", which the body lacks")
		}
		got, ok := decodeParamHeader(vs[0])
		if !ok {
			return mismatch(field + " holds invalid Base64")
		}
		if got != want {
			return mismatch(field + " does not match argument " + strconv.Quote(param))
		}
	}
	return nil
}

// paramBodyValue is an argument as its header must carry it once decoded:
// a string as it is, a number or boolean as its JSON text. Null or absent
// arguments have no header.
func paramBodyValue(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	return string(raw), true
}

// decodeParamHeader decodes a header value: optional whitespace around it
// is not part of it (RFC 9110, section 5.5), and a value wrapped as
// =?base64?...?= is strict standard Base64 (padding required, no other
// characters), which a value that only looks partly wrapped is not.
func decodeParamHeader(v string) (string, bool) {
	v = strings.Trim(v, " \t")
	const pre, suf = "=?base64?", "?="
	if len(v) < len(pre)+len(suf) || !strings.HasPrefix(v, pre) || !strings.HasSuffix(v, suf) {
		return v, true
	}
	b, err := base64.StdEncoding.Strict().DecodeString(v[len(pre) : len(v)-len(suf)])
	if err != nil {
		return "", false
	}
	return string(b), true
}

// ambiguousArgument reports an annotated argument that the arguments hold
// more than once, or under a key that differs from its name only in case.
// Which of them the tool reads depends on how it decodes: encoding/json
// folds case and takes the last, other parsers the first or the exact
// key. Any of those may differ from the value its header was checked
// against, so such arguments are refused.
func ambiguousArgument(rawArgs []byte, headers map[string]string) (string, bool) {
	if len(rawArgs) == 0 || rawArgs[0] != '{' {
		return "", false
	}
	seen := make(map[string]int, len(headers))
	var bad string
	_ = jsonscan.MembersBytes(rawArgs, func(k, _ []byte) bool {
		for param := range headers {
			if bytes.EqualFold(k, []byte(param)) {
				seen[param]++
				if seen[param] > 1 || string(k) != param {
					bad = param
					return false
				}
			}
		}
		return true
	})
	return bad, bad != ""
}
