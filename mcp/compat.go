package mcp

import (
	"encoding/json"
	"fmt"
)

// The model holds every revision's members; a client of an older revision
// must not receive members its schema does not define. The functions here
// shape what the server sends to the revision of the request. They copy
// before changing anything: registered tools and handler results may be
// shared between sessions of different revisions.

// before reports whether revision v is older than r.
func before(v, r string) bool { return v != "" && v < r }

// forImplementation drops members newer than v.
func forImplementation(impl Implementation, v string) Implementation {
	if before(v, Version20251125) {
		impl.Description, impl.WebsiteURL, impl.Icons = "", "", nil
	}
	if before(v, Version20250618) {
		impl.Title = ""
	}
	return impl
}

// forTool returns t as revision v may see it.
func forTool(t *Tool, v string) *Tool {
	if !before(v, Version20260728) {
		return t
	}
	c := *t
	if v != Version20251125 {
		c.Execution = nil
	}
	if before(v, Version20251125) {
		c.Icons = nil
	}
	if before(v, Version20250618) || !isObjectSchema(c.OutputSchema) {
		// Before 2026-07-28 an output schema must describe an object.
		c.OutputSchema = nil
	}
	if before(v, Version20250618) {
		c.Title, c.Meta = "", nil
	}
	if before(v, Version20250326) {
		c.Annotations = nil
	}
	return &c
}

// forCallResult returns r as revision v may see it.
func forCallResult(r *CallToolResult, v string) *CallToolResult {
	if !before(v, Version20260728) {
		return r
	}
	// Structured content is an object, and only since 2025-06-18; the text
	// mirror carries it for everyone else.
	dropStructured := r.StructuredContent != nil && (before(v, Version20250618) || !isObject(r.StructuredContent))
	if !dropStructured && !before(v, Version20251125) {
		return r // nothing to change: no copy
	}
	c := *r
	if dropStructured {
		c.StructuredContent = nil
	}
	c.Content = forContent(c.Content, v)
	return &c
}

// forContent returns blocks as revision v may see them: blocks the
// revision does not know become text that says what they were.
func forContent(blocks []Content, v string) []Content {
	if !before(v, Version20251125) {
		return blocks
	}
	old := before(v, Version20250618) // no _meta or lastModified on blocks yet
	out := make([]Content, len(blocks))
	for i, b := range blocks {
		switch b := b.(type) {
		case *TextContent:
			c := *b
			if old {
				c.Meta, c.Annotations = nil, forAnnotations(c.Annotations)
			}
			out[i] = &c
		case *ImageContent:
			c := *b
			if old {
				c.Meta, c.Annotations = nil, forAnnotations(c.Annotations)
			}
			out[i] = &c
		case *AudioContent:
			if before(v, Version20250326) {
				out[i] = &TextContent{Text: fmt.Sprintf("[%s audio omitted: protocol %s has no audio content]", b.MIMEType, v)}
				continue
			}
			c := *b
			if old {
				c.Meta, c.Annotations = nil, forAnnotations(c.Annotations)
			}
			out[i] = &c
		case *ResourceLink:
			if old {
				out[i] = &TextContent{Text: fmt.Sprintf("Resource %s: %s", b.Name, b.URI)}
				continue
			}
			c := *b
			c.Icons = nil
			out[i] = &c
		case *EmbeddedResource:
			c := *b
			if old {
				c.Meta, c.Annotations = nil, forAnnotations(c.Annotations)
				if c.Resource != nil {
					rc := *c.Resource
					rc.Meta = nil
					c.Resource = &rc
				}
			}
			out[i] = &c
		default:
			out[i] = b
		}
	}
	return out
}

func forAnnotations(a *Annotations) *Annotations {
	if a == nil || a.LastModified == "" {
		return a
	}
	c := *a
	c.LastModified = ""
	return &c
}

func isObjectSchema(s json.RawMessage) bool {
	if s == nil {
		return true
	}
	var v struct {
		Type any `json:"type"`
	}
	return json.Unmarshal(s, &v) == nil && v.Type == "object"
}

// isObject reports whether structured content encodes as a JSON object.
func isObject(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case map[string]any:
		return true
	case json.RawMessage:
		return len(v) > 0 && v[0] == '{'
	}
	b, err := json.Marshal(v)
	return err == nil && len(b) > 0 && b[0] == '{'
}

// forResource returns r as revision v may see it.
func forResource(r *Resource, v string) *Resource {
	if !before(v, Version20251125) {
		return r
	}
	c := *r
	c.Icons = nil
	if before(v, Version20250618) {
		c.Title, c.Meta = "", nil
		c.Annotations = forAnnotations(c.Annotations)
	}
	if before(v, Version20250326) {
		c.Size = nil
	}
	return &c
}

// forTemplate returns t as revision v may see it.
func forTemplate(t *ResourceTemplate, v string) *ResourceTemplate {
	if !before(v, Version20251125) {
		return t
	}
	c := *t
	c.Icons = nil
	if before(v, Version20250618) {
		c.Title, c.Meta = "", nil
		c.Annotations = forAnnotations(c.Annotations)
	}
	return &c
}

// forPrompt returns p as revision v may see it.
func forPrompt(p *Prompt, v string) *Prompt {
	if !before(v, Version20251125) {
		return p
	}
	c := *p
	c.Icons = nil
	if before(v, Version20250618) {
		c.Title, c.Meta = "", nil
		if len(c.Arguments) > 0 {
			args := make([]*PromptArgument, len(c.Arguments))
			for i, a := range c.Arguments {
				ac := *a
				ac.Title = ""
				args[i] = &ac
			}
			c.Arguments = args
		}
	}
	return &c
}

// forReadResult drops _meta from contents for revisions before 2025-06-18.
func forReadResult(r *ReadResourceResult) *ReadResourceResult {
	c := *r
	c.Contents = make([]*ResourceContents, len(r.Contents))
	for i, rc := range r.Contents {
		cc := *rc
		cc.Meta = nil
		c.Contents[i] = &cc
	}
	return &c
}
