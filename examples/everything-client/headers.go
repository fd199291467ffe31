package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
)

// SEP-2243 custom headers: a tool parameter annotated with
// "x-mcp-header": "Name" is mirrored into an Mcp-Param-Name header of the
// tools/call POST. The library's HTTP transport has no hook for it, so
// this client does it in its http.RoundTripper, from the schemas it saw in
// tools/list.

// paramHeaders is an http.RoundTripper that adds Mcp-Param-* headers to
// tools/call requests of tools registered with learn.
type paramHeaders struct {
	mu    sync.Mutex
	tools map[string]map[string]string // tool -> parameter -> header name
}

// learn records the annotated parameters of valid tools and returns the
// tools that are valid (invalid annotations exclude the tool, SEP-2243).
func (p *paramHeaders) learn(tools []*mcp.Tool) []*mcp.Tool {
	p.mu.Lock()
	defer p.mu.Unlock()
	var valid []*mcp.Tool
	for _, t := range tools {
		headers, err := toolHeaders(t.InputSchema)
		if err != nil {
			continue
		}
		p.tools[t.Name] = headers
		valid = append(valid, t)
	}
	return valid
}

// toolHeaders returns the x-mcp-header annotations of a schema's
// properties, or an error if one is invalid: empty, not a token, a
// duplicate (case-insensitively), or on a parameter that is not a string,
// integer or boolean.
func toolHeaders(schema json.RawMessage) (map[string]string, error) {
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

// RoundTrip implements http.RoundTripper.
func (p *paramHeaders) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || req.Body == nil {
		return http.DefaultTransport.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name      string                     `json:"name"`
			Arguments map[string]json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) == nil && msg.Method == "tools/call" {
		p.mu.Lock()
		headers := p.tools[msg.Params.Name]
		p.mu.Unlock()
		if len(headers) > 0 {
			req = req.Clone(req.Context())
			for param, name := range headers {
				if v, ok := headerValue(msg.Params.Arguments[param]); ok {
					req.Header.Set("Mcp-Param-"+name, v)
				}
			}
		}
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return http.DefaultTransport.RoundTrip(req)
}

// headerValue renders an argument for its header: strings as they are,
// or "=?base64?...?=" when HTTP cannot carry them (non-ASCII, control
// characters, surrounding space); numbers and booleans as JSON writes
// them. Null or absent: no header.
func headerValue(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return string(raw), true
	}
	plain := s == strings.TrimSpace(s)
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] < 0x7f
	}
	if plain && !strings.HasPrefix(s, "=?base64?") {
		return s, true
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?=", true
}

// customHeaders (http-custom-headers): make the tool calls the scenario's
// context names, with the headers mirrored.
func customHeaders(ctx context.Context, r *runner) error {
	var sc struct {
		ToolCalls []struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"toolCalls"`
	}
	if len(r.context) > 0 {
		if err := json.Unmarshal(r.context, &sc); err != nil {
			return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	c, err := r.connect(ctx, client.Options{})
	if err != nil {
		return err
	}
	defer c.Close()
	tools, err := c.ListTools(ctx)
	if err != nil {
		return err
	}
	r.params.learn(tools)
	for _, call := range sc.ToolCalls {
		if _, err := c.CallTool(ctx, call.Name, call.Arguments); err != nil {
			return fmt.Errorf("%s: %w", call.Name, err)
		}
	}
	return nil
}

// invalidToolHeaders (http-invalid-tool-headers): drop the tools whose
// x-mcp-header annotations are invalid and call the others.
func invalidToolHeaders(ctx context.Context, r *runner) error {
	c, err := r.connect(ctx, client.Options{})
	if err != nil {
		return err
	}
	defer c.Close()
	tools, err := c.ListTools(ctx)
	if err != nil {
		return err
	}
	for _, t := range r.params.learn(tools) {
		args := map[string]any{}
		var s struct {
			Properties map[string]struct {
				Type string `json:"type"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		_ = json.Unmarshal(t.InputSchema, &s)
		for _, req := range s.Required {
			switch s.Properties[req].Type {
			case "integer", "number":
				args[req] = 1
			case "boolean":
				args[req] = true
			default:
				args[req] = "value"
			}
		}
		if _, err := c.CallTool(ctx, t.Name, args); err != nil {
			return fmt.Errorf("%s: %w", t.Name, err)
		}
	}
	return nil
}
