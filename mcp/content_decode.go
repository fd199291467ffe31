package mcp

import (
	"bytes"
	"encoding/json"

	"github.com/winbridge/winbridge/internal/jsonscan"
	"github.com/winbridge/winbridge/internal/wirenames"
)

// Fast decoding of tool results and their common blocks. encoding/json
// scans a value once to check it, once more for each UnmarshalJSON layer
// it passes through (CallToolResult, its content list, each block), and
// again to decode it: a megabyte text went over eight times. Here a result
// is checked (a word at a time) as its members are split
// (jsonscan.MembersValid), and each of them walked once more, each string
// decoded as encoding/json decodes it.
//
// The fast path follows encoding/json's rules where inputs are ordinary
// and gives up where they are not (a member name that matches a field only
// ignoring case, a member given twice, a value of an unexpected kind, a
// block type it does not know): the encoding/json path then decodes the
// input, with the same result or error as before. content_decode_test.go
// fuzzes the two against each other. All functions here take valid JSON,
// but decodeFast and fastObjectValid, which check it.

// fastObject stores in vals[i] the raw value of the member of obj named
// names[i], if any. It reports false when encoding/json could decode obj
// into a struct with fields of these names otherwise than by exact name:
// when a member's name equals one of names only ignoring case (which
// encoding/json accepts), or a name comes twice.
func fastObject(obj []byte, names []string, vals [][]byte) bool {
	return fastMembers(obj, names, vals, false)
}

// fastObjectValid is fastObject for obj not yet checked: it also reports
// false when obj is not valid JSON, which it checks as it walks it.
func fastObjectValid(obj []byte, names []string, vals [][]byte) bool {
	return fastMembers(obj, names, vals, true)
}

func fastMembers(obj []byte, names []string, vals [][]byte, check bool) bool {
	var seen uint32
	ok := true
	f := func(k, v []byte) bool {
		for i, n := range names {
			if string(k) == n {
				if seen&(1<<i) != 0 {
					ok = false
					return false
				}
				seen |= 1 << i
				vals[i] = v
				return true
			}
		}
		for _, n := range names {
			if bytes.EqualFold(k, []byte(n)) {
				ok = false
				return false
			}
		}
		return true
	}
	if check {
		// MembersValid also accepts values other than objects, without
		// calling f; MembersBytes did not.
		t := bytes.TrimLeft(obj, " \t\r\n")
		return jsonscan.MembersValid(obj, f) && ok && len(t) > 0 && t[0] == '{'
	}
	return jsonscan.MembersBytes(obj, f) == nil && ok
}

// fastString decodes v, if present, into a string field: null leaves it
// unchanged, as encoding/json does.
func fastString(dst *string, v []byte) bool {
	switch {
	case v == nil || string(v) == "null":
		return true
	case v[0] != '"':
		return false
	}
	s, ok := wirenames.Unquote(v)
	*dst = s
	return ok
}

// fastStringPtr decodes v, if present, into a *string field.
func fastStringPtr(dst **string, v []byte) bool {
	switch {
	case v == nil:
		return true
	case string(v) == "null":
		*dst = nil
		return true
	case v[0] != '"':
		return false
	}
	s, ok := jsonscan.Unquote(v)
	*dst = &s
	return ok
}

// fastSmall decodes v, if present, into dst with encoding/json: for the
// small members (annotations, _meta, structured content) whose decoding
// the fast path leaves to it. v is valid JSON (the fast paths check the
// whole message first), so an object goes straight to a type's own
// UnmarshalJSON (Meta's), which json.Unmarshal would call after checking
// it again and reflecting on dst.
func fastSmall(dst any, v []byte) bool {
	if v == nil {
		return true
	}
	if m, ok := dst.(*Meta); ok && v[0] == '{' {
		// Meta.UnmarshalJSON without its check of v, which is valid.
		if obj, ok := decodeMetaMemo(v); ok {
			*m = obj
			return true
		}
	}
	if p, ok := dst.(*any); ok && *p == nil {
		// As json.Unmarshal decodes into an empty interface (structured
		// content), without checking v again and reflecting on dst; a
		// number float64 cannot hold is encoding/json's, for its error.
		if x, ok := jsonscan.DecodeAnyFloat(v); ok {
			*p = x
			return true
		}
	}
	if u, ok := dst.(json.Unmarshaler); ok && v[0] == '{' {
		return u.UnmarshalJSON(v) == nil
	}
	return json.Unmarshal(v, dst) == nil
}

// The members of the blocks decodeBlockFast handles, as indexes into
// blockFields.
const (
	bfType = iota
	bfText
	bfData
	bfMIMEType
	bfResource
	bfAnnotations
	bfMeta
)

var blockFields = [...]string{"type", "text", "data", "mimeType", "resource", "annotations", "_meta"}

// decodeBlockFast decodes a text, image, audio or embedded resource block
// from raw, valid JSON, or reports false.
func decodeBlockFast(raw []byte) (Content, bool) {
	var v [len(blockFields)][]byte
	if !fastObject(raw, blockFields[:], v[:]) {
		return nil, false
	}
	typ := v[bfType]
	if len(typ) < 2 || typ[0] != '"' || bytes.IndexByte(typ, '\\') >= 0 {
		return nil, false
	}
	switch string(typ[1 : len(typ)-1]) {
	case "text":
		c := &TextContent{}
		ok := fastString(&c.Text, v[bfText]) && fastSmall(&c.Annotations, v[bfAnnotations]) && fastSmall(&c.Meta, v[bfMeta])
		return c, ok
	case "image":
		c := &ImageContent{}
		ok := fastString(&c.Data, v[bfData]) && fastString(&c.MIMEType, v[bfMIMEType]) &&
			fastSmall(&c.Annotations, v[bfAnnotations]) && fastSmall(&c.Meta, v[bfMeta])
		return c, ok
	case "audio":
		c := &AudioContent{}
		ok := fastString(&c.Data, v[bfData]) && fastString(&c.MIMEType, v[bfMIMEType]) &&
			fastSmall(&c.Annotations, v[bfAnnotations]) && fastSmall(&c.Meta, v[bfMeta])
		return c, ok
	case "resource":
		c := &EmbeddedResource{}
		ok := fastResourceContents(&c.Resource, v[bfResource]) && fastSmall(&c.Annotations, v[bfAnnotations]) && fastSmall(&c.Meta, v[bfMeta])
		return c, ok
	}
	return nil, false
}

var resourceContentsFields = [...]string{"uri", "mimeType", "text", "blob", "_meta"}

// fastResourceContents decodes v, if present, into a *ResourceContents
// field that is nil.
func fastResourceContents(dst **ResourceContents, v []byte) bool {
	switch {
	case v == nil || string(v) == "null":
		return true
	case v[0] != '{':
		return false
	}
	var m [len(resourceContentsFields)][]byte
	if !fastObject(v, resourceContentsFields[:], m[:]) {
		return false
	}
	rc := &ResourceContents{}
	*dst = rc
	return fastString(&rc.URI, m[0]) && fastString(&rc.MIMEType, m[1]) && fastStringPtr(&rc.Text, m[2]) &&
		fastStringPtr(&rc.Blob, m[3]) && fastSmall(&rc.Meta, m[4])
}

// decodeContentsFast decodes a content list (a JSON array, or null, which
// contentList decodes as an empty list) from b, valid JSON. Blocks that
// decodeBlockFast leaves are decoded by decodeContentSlow; if one fails,
// so does decodeContentsFast, for the caller to produce the error.
func decodeContentsFast(b []byte) ([]Content, bool) {
	if string(b) == "null" {
		return []Content{}, true
	}
	var out []Content
	ok := true
	err := jsonscan.Elements(b, func(e []byte) bool {
		c, fast := decodeBlockFast(e)
		if !fast {
			var err error
			if c, err = decodeContentSlow(e); err != nil {
				ok = false
				return false
			}
		}
		out = append(out, c)
		return true
	})
	if err != nil || !ok {
		return nil, false
	}
	if out == nil {
		out = []Content{}
	}
	return out, true
}

var callToolResultFields = [...]string{"content", "structuredContent", "isError", "resultType", "_meta"}

// decodeFast decodes b into r as unmarshalSlow would, or reports false
// and leaves r unchanged. b need not be valid JSON: it is checked as its
// members are split (fastObjectValid), and anything else is
// unmarshalSlow's.
func (r *CallToolResult) decodeFast(b []byte) bool {
	var v [len(callToolResultFields)][]byte
	if !fastObjectValid(b, callToolResultFields[:], v[:]) {
		return false
	}
	out := *r
	out.Content = nil
	if v[0] != nil {
		var ok bool
		if out.Content, ok = decodeContentsFast(v[0]); !ok {
			return false
		}
	}
	switch string(v[2]) {
	case "", "null":
		out.IsError, out.IsErrorSet = false, false
	case "true":
		out.IsError, out.IsErrorSet = true, true
	case "false":
		out.IsError, out.IsErrorSet = false, true
	default:
		return false
	}
	if !fastSmall(&out.StructuredContent, v[1]) || !fastString(&out.ResultType, v[3]) || !fastSmall(&out.Meta, v[4]) {
		return false
	}
	*r = out
	return true
}
