package gateway

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/winbridge/winbridge/mcp"
)

// What an upstream lists beside its tools' descriptions reaches the host
// as surely: the icons of tools, resources, templates and prompts; the
// titles, descriptions and _meta of resource, template and prompt
// entries; a prompt's arguments; a prompts/get description. Each is
// bounded here, with fixed limits (like maxDescriptionBytes).
const (
	// maxIconBytes bounds one icon, encoded: a data: URI of a small
	// image fits, a megabyte one does not.
	maxIconBytes = 16 << 10
	// maxListedMetaBytes bounds the _meta and annotations of a listed
	// resource, template or prompt, encoded; past it they are left out.
	maxListedMetaBytes = 4096
	// maxListedURIBytes bounds a resource's URI or a template's URI
	// template: it cannot be cut (it is what a read names), so an entry
	// past it is not offered.
	maxListedURIBytes = 4096
	// maxPromptArgs and maxPromptArgNameBytes bound a prompt's
	// arguments: a name cannot be cut (prompts/get passes it on), so a
	// prompt past either is not offered.
	maxPromptArgs         = 64
	maxPromptArgNameBytes = 256
)

// cutListedMarker ends a cut listed text.
const cutListedMarker = " [...]"

// cutListed cuts a listed title or description at maxDescriptionBytes.
func cutListed(s string) string {
	if len(s) > maxDescriptionBytes {
		return cutUTF8(s, maxDescriptionBytes) + cutListedMarker
	}
	return s
}

// boundIcons keeps at most maxIcons icons, each an https: or data:image/
// URI (a javascript:, file: or data:text/html source is for no host to
// open) of at most maxIconBytes encoded. icons is not modified.
func boundIcons(icons []mcp.Icon) []mcp.Icon {
	var out []mcp.Icon
	for _, ic := range icons {
		if len(out) == maxIcons {
			break
		}
		src := strings.ToLower(ic.Src[:min(len(ic.Src), 16)])
		if !strings.HasPrefix(src, "https:") && !strings.HasPrefix(src, "data:image/") {
			continue
		}
		if b, _ := json.Marshal(ic); len(b) > maxIconBytes {
			continue
		}
		out = append(out, ic)
	}
	return out
}

// fits says whether v's encoding takes at most n bytes.
func fits(v any, n int) bool {
	b, _ := json.Marshal(v)
	return len(b) <= n
}

// boundListedMeta is the _meta of a listed entry without the keys an
// upstream may not write (reserved.go), or nil when it passes
// maxListedMetaBytes.
func boundListedMeta(m mcp.Meta) mcp.Meta {
	m, _ = upstreamMeta(m)
	if len(m) == 0 || fits(m, maxListedMetaBytes) {
		return m
	}
	return nil
}

func boundAnnotations(a *mcp.Annotations) *mcp.Annotations {
	if a == nil || fits(a, maxListedMetaBytes) {
		return a
	}
	return nil
}

// listedResource is r as the facade lists it, or nil when its URI is too
// long to offer.
func listedResource(r *mcp.Resource) *mcp.Resource {
	if len(r.URI) > maxListedURIBytes {
		return nil
	}
	cp := *r
	cp.Name, cp.Title, cp.Description = cutListed(r.Name), cutListed(r.Title), cutListed(r.Description)
	cp.MIMEType = cutUTF8(r.MIMEType, 256)
	cp.Icons, cp.Meta, cp.Annotations = boundIcons(r.Icons), boundListedMeta(r.Meta), boundAnnotations(r.Annotations)
	return &cp
}

// listedTemplate is t as the facade lists it, or nil when its URI
// template is too long to offer.
func listedTemplate(t *mcp.ResourceTemplate) *mcp.ResourceTemplate {
	if len(t.URITemplate) > maxListedURIBytes {
		return nil
	}
	cp := *t
	cp.Name, cp.Title, cp.Description = cutListed(t.Name), cutListed(t.Title), cutListed(t.Description)
	cp.MIMEType = cutUTF8(t.MIMEType, 256)
	cp.Icons, cp.Meta, cp.Annotations = boundIcons(t.Icons), boundListedMeta(t.Meta), boundAnnotations(t.Annotations)
	return &cp
}

// promptOffered says whether a prompt's arguments can be listed: their
// names cannot be cut.
func promptOffered(p *mcp.Prompt) bool {
	if len(p.Arguments) > maxPromptArgs {
		return false
	}
	for _, a := range p.Arguments {
		if a != nil && len(a.Name) > maxPromptArgNameBytes {
			return false
		}
	}
	return true
}

// listedPrompt bounds the text of a prompt entry in place (p is the
// facade's copy; its arguments are copied before they change).
func listedPrompt(p *mcp.Prompt) {
	p.Title, p.Description = cutListed(p.Title), cutListed(p.Description)
	p.Icons, p.Meta = boundIcons(p.Icons), boundListedMeta(p.Meta)
	args := make([]*mcp.PromptArgument, 0, len(p.Arguments))
	for _, a := range p.Arguments {
		if a == nil {
			continue
		}
		ca := *a
		ca.Title, ca.Description = cutListed(a.Title), cutListed(a.Description)
		args = append(args, &ca)
	}
	if p.Arguments != nil {
		p.Arguments = args
	}
}

// cutSchemaProse cuts the description and title strings of a listed
// schema at maxDescriptionBytes, as a tool's description is. Values that
// are data (default, const, enum, examples) are left exactly as sent:
// cutting one would change what the schema means. raw is returned as it
// is when nothing is cut (or it does not decode: the caller's checks
// handle that).
func cutSchemaProse(raw json.RawMessage) json.RawMessage {
	if len(raw) <= maxDescriptionBytes {
		return raw // no string in it can pass the cap
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if dec.Decode(&doc) != nil || !cutProse(doc, false, maxDescriptionBytes) {
		return raw
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // "<" stays one byte, as the upstream sent it
	if enc.Encode(doc) != nil {
		return raw
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// schemaData are the keywords whose values are instances, not schemas.
var schemaData = map[string]bool{"default": true, "const": true, "enum": true, "examples": true, "example": true}

// schemaMaps are the keywords whose values map names to schemas: a
// property named "default" or "description" is a schema like any other.
var schemaMaps = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true}

// cutProse cuts in place the prose strings past limit bytes (at
// maxDescriptionBytes, with cutListed); names says v maps names to
// schemas. It reports whether anything was cut.
func cutProse(v any, names bool, limit int) bool {
	cut := false
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if names {
				cut = cutProse(x, false, limit) || cut
				continue
			}
			if schemaData[k] {
				continue
			}
			if s, ok := x.(string); ok && (k == "description" || k == "title") && len(s) > limit {
				v[k] = cutListed(s)
				cut = true
				continue
			}
			cut = cutProse(x, schemaMaps[k], limit) || cut
		}
	case []any:
		for _, x := range v {
			cut = cutProse(x, false, limit) || cut
		}
	}
	return cut
}
