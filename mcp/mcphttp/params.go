package mcphttp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// SEP-2243: a tool parameter annotated "x-mcp-header": "Name" travels both
// in the body and as an Mcp-Param-Name header of the tools/call POST, so
// that HTTP infrastructure (gateways, rate limiters) can route on it
// without parsing JSON. The HTTP framer learns the annotations from the
// tools/list responses it carries; a tool whose annotations are invalid
// cannot be called the way its server expects, so the framer leaves it out
// of the list it hands up, as the proposal requires of clients.

// toolParamHeaders returns a tool's annotated parameters (parameter ->
// header name), or an error if an annotation is invalid: empty, not an
// HTTP token, a case-insensitive duplicate, or on a parameter that is not
// a string, integer or boolean.
func toolParamHeaders(schema json.RawMessage) (map[string]string, error) {
	var s struct {
		Properties map[string]map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, err
	}
	out := map[string]string{}
	seen := map[string]bool{}
	for param, prop := range s.Properties {
		raw, ok := prop["x-mcp-header"]
		if !ok {
			continue
		}
		var name string
		if err := json.Unmarshal(raw, &name); err != nil || name == "" {
			return nil, fmt.Errorf("%s: x-mcp-header must be a non-empty string", param)
		}
		for i := 0; i < len(name); i++ {
			if !isTokenChar(name[i]) {
				return nil, fmt.Errorf("%s: x-mcp-header %q is not an HTTP token", param, name)
			}
		}
		if seen[strings.ToLower(name)] {
			return nil, fmt.Errorf("%s: duplicate x-mcp-header %q", param, name)
		}
		seen[strings.ToLower(name)] = true
		var typ string
		_ = json.Unmarshal(prop["type"], &typ)
		if typ != "string" && typ != "integer" && typ != "boolean" {
			return nil, fmt.Errorf("%s: x-mcp-header on a %q parameter", param, typ)
		}
		out[param] = name
	}
	return out, nil
}

func isTokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// paramHeaderValue renders an argument for its header: a string as
// encodeHeaderValue writes it, numbers and booleans as JSON writes them.
// Null or absent: no header.
func paramHeaderValue(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return string(raw), true
	}
	return encodeHeaderValue(s), true
}

// learnTools records the annotations of a tools/list result and returns
// the message with the tools whose annotations are invalid removed (msg
// itself when nothing changes). req is the tools/list request.
//
// What a listing teaches goes to Framer.listing, from its first page (no
// cursor), which starts it afresh, to its last (no nextCursor), which
// makes it the framer's Framer.params, the headers of the last complete
// list; a tool's headers are looked up in the listing under way first
// (paramsOf). So the framer holds at most two lists: a tool the server no
// longer lists is forgotten, and pages of lists given up (a server whose
// cursors never end) are dropped with the next list. Before, every tool
// ever listed was kept for the connection's life, and a server that named
// new tools in every list grew the client without bound.
func (f *Framer) learnTools(msg, req []byte) []byte {
	var env map[string]json.RawMessage
	if json.Unmarshal(msg, &env) != nil {
		return msg
	}
	var result map[string]json.RawMessage
	if json.Unmarshal(env["result"], &result) != nil {
		return msg
	}
	var tools []json.RawMessage
	if json.Unmarshal(result["tools"], &tools) != nil {
		return msg
	}
	var next string
	_ = json.Unmarshal(result["nextCursor"], &next)
	kept := tools[:0:0]
	dropped := false
	// One warning per response, naming the first tool: one per tool let
	// a list of tiny invalid tools write more to the log than the server
	// sent.
	invalid, firstName, firstErr := 0, "", error(nil)
	f.mu.Lock()
	if f.listing == nil || requestCursor(req) == "" {
		f.listing = map[string]map[string]string{}
	}
	for _, t := range tools {
		var head struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if json.Unmarshal(t, &head) != nil {
			kept = append(kept, t)
			continue
		}
		headers, err := toolParamHeaders(head.InputSchema)
		if err != nil {
			if invalid++; invalid == 1 {
				firstName, firstErr = head.Name, err
			}
			f.listing[head.Name] = nil // known, and without headers
			dropped = true
			continue
		}
		if len(headers) == 0 {
			headers = nil
		}
		f.listing[head.Name] = headers
		kept = append(kept, t)
	}
	if next == "" {
		for name, h := range f.listing {
			if h == nil {
				delete(f.listing, name) // the list is all there is now
			}
		}
		f.params, f.listing = f.listing, nil
	}
	f.mu.Unlock()
	if invalid > 0 {
		f.log.Warn("mcphttp: leaving out tools with an invalid x-mcp-header annotation", "tools", invalid, "first", firstName, "err", firstErr)
	}
	if !dropped {
		return msg
	}
	b, err := json.Marshal(kept)
	if err != nil {
		return msg
	}
	result["tools"] = b
	if env["result"], err = json.Marshal(result); err != nil {
		return msg
	}
	out, err := json.Marshal(env)
	if err != nil {
		return msg
	}
	return out
}

// addParamHeaders adds the Mcp-Param-* headers of a tools/call, headers
// being its tool's parameter headers (Framer.params).
func addParamHeaders(h http.Header, m *outMsg, headers map[string]string) {
	var args map[string]json.RawMessage
	_ = json.Unmarshal(m.rawArgs, &args)
	for param, name := range headers {
		if v, ok := paramHeaderValue(args[param]); ok {
			h.Set("Mcp-Param-"+name, v)
		}
	}
}

// requestCursor is the cursor of a list request; empty for the first page.
func requestCursor(req []byte) string {
	var r struct {
		Params struct {
			Cursor string `json:"cursor"`
		} `json:"params"`
	}
	_ = json.Unmarshal(req, &r)
	return r.Params.Cursor
}

// paramsOf returns the parameter headers of tool name: as the listing
// under way has them, or else as the last complete list had them. The
// caller holds f.mu.
func (f *Framer) paramsOf(name string) map[string]string {
	if h, ok := f.listing[name]; ok {
		return h
	}
	return f.params[name]
}
