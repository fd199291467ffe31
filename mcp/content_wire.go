package mcp

import (
	"slices"

	"github.com/winbridge/winbridge/internal/jsonscan"
)

// Wire forms for encoding. encoding/json scans and copies whatever a
// MarshalJSON method returns, so a result encoded through the nested
// MarshalJSON methods of its blocks went over a large text once per level.
// The wire forms are plain structs, with the "type" member first, that
// encoding/json encodes in a single pass with no MarshalJSON in between;
// the bytes are the same as the MarshalJSON methods produce (tested
// against the earlier encoder in content_wire_test.go).

type (
	textPlain     TextContent
	imagePlain    ImageContent
	audioPlain    AudioContent
	linkPlain     ResourceLink
	embeddedPlain EmbeddedResource
)

type textWire struct {
	Type string `json:"type"`
	*textPlain
}

type imageWire struct {
	Type string `json:"type"`
	*imagePlain
}

type audioWire struct {
	Type string `json:"type"`
	*audioPlain
}

type linkWire struct {
	Type string `json:"type"`
	*linkPlain
}

type embeddedWire struct {
	Type string `json:"type"`
	*embeddedPlain
}

// wireContent returns the wire form of c, or c itself for the blocks that
// have none (sampling's tool_use and tool_result, unknown blocks) and for
// nil pointers, which encode as null either way.
func wireContent(c Content) any {
	switch c := c.(type) {
	case *TextContent:
		if c != nil {
			return &textWire{"text", (*textPlain)(c)}
		}
	case *ImageContent:
		if c != nil {
			return &imageWire{"image", (*imagePlain)(c)}
		}
	case *AudioContent:
		if c != nil {
			return &audioWire{"audio", (*audioPlain)(c)}
		}
	case *ResourceLink:
		if c != nil {
			return &linkWire{"resource_link", (*linkPlain)(c)}
		}
	case *EmbeddedResource:
		if c != nil {
			return &embeddedWire{"resource", (*embeddedPlain)(c)}
		}
	}
	return c
}

// wireContents returns the wire forms of blocks, never nil.
func wireContents(blocks []Content) []any {
	out := make([]any, len(blocks))
	for i, c := range blocks {
		out[i] = wireContent(c)
	}
	return out
}

// callToolResultWire is the wire form of a CallToolResult.
type callToolResultWire struct {
	Content           []any `json:"content"`
	StructuredContent any   `json:"structuredContent,omitempty"`
	IsError           bool  `json:"isError,omitempty"`
	ResultEnvelope
	// Meta is the result's _meta as encoded: its Meta, or that with the
	// server's info added (stampCallResult). Being shallower, it hides
	// ResultEnvelope.Meta from encoding/json, and comes where it came.
	Meta any `json:"_meta,omitempty"`
}

// callToolResultFalseWire is the wire form of a result that says
// "isError": false. Its shape is that of the struct the earlier encoder
// used, so the member comes where it came then: last.
type callToolResultFalseWire struct {
	*callToolResultWire
	IsError bool `json:"isError"`
}

// wire returns the wire form of r, which encoding/json encodes in one pass.
// It shares r's blocks and maps: encode it before r changes.
func (r *CallToolResult) wire() any { return r.wireStruct().form(r) }

// wireStruct returns the wire struct of r, for wire and stampCallResult.
func (r *CallToolResult) wireStruct() *callToolResultWire {
	w := &callToolResultWire{
		Content:           wireContents(r.Content),
		StructuredContent: r.StructuredContent,
		IsError:           r.IsError,
		ResultEnvelope:    r.ResultEnvelope,
	}
	if r.Meta != nil { // omitted when nil, as ResultEnvelope.Meta is
		w.Meta = r.Meta
	}
	return w
}

// form returns w as encoding/json must see it for r.
func (w *callToolResultWire) form(r *CallToolResult) any {
	if r.IsErrorSet && !r.IsError {
		return &callToolResultFalseWire{callToolResultWire: w}
	}
	return w
}

// maxFastResult bounds the text appendCallResultFast writes: its bytes are
// checked once more as the transport sends them (a json.RawMessage), which
// costs less than encoding/json's reflection on a small result, not on a
// large one.
const maxFastResult = 16 << 10

// appendCallResultFast appends r's wire form, the bytes json.Marshal
// writes for r.wire(), for the common result of a tool: text blocks
// without annotations or _meta, of plain printable ASCII that encoding/json
// writes as it is (no quote, backslash, or <, >, & that it escapes for
// HTML), no structured content, resultType or _meta. It reports false for
// anything else, and for more than maxFastResult bytes of text, leaving
// those to encoding/json.
//
// Why: the result of every call went through encoding/json's reflection
// on the wire struct, its blocks and its embedded envelope, and the wire
// struct with its blocks cost three allocations more.
func appendCallResultFast(b []byte, r *CallToolResult) ([]byte, bool) {
	if r.ResultType != "" {
		return b, false
	}
	return appendCallResult(b, r, nil)
}

// appendCallResultStamped is appendCallResultFast for a stateless result,
// stamped as stampCallResult stamps one without _meta of its own:
// resultType "complete" and stamp, the server's _meta as encoding/json
// writes it (Server.infoMetaJSON). It reports false for a result with
// _meta of its own or another resultType, and for what appendCallResultFast
// leaves to encoding/json.
//
// Why: every stateless result, the common plain text one included, went
// through encoding/json's reflection on the wire struct and the server's
// identity, about a quarter of the server's CPU for a small stateless call.
func appendCallResultStamped(b []byte, r *CallToolResult, stamp []byte) ([]byte, bool) {
	if r.ResultType != "" && r.ResultType != ResultComplete {
		return b, false
	}
	return appendCallResult(b, r, stamp)
}

// appendCallResult writes r for appendCallResultFast (stamp nil) and
// appendCallResultStamped.
func appendCallResult(b []byte, r *CallToolResult, stamp []byte) ([]byte, bool) {
	if r.StructuredContent != nil || r.Meta != nil || (r.IsErrorSet && !r.IsError) {
		return b, false
	}
	size := 0
	for _, c := range r.Content {
		t, ok := c.(*TextContent)
		if !ok || t == nil || t.Annotations != nil || t.Meta != nil || !jsonscan.Plain(t.Text) {
			return b, false
		}
		size += len(t.Text)
	}
	if size > maxFastResult {
		return b, false
	}
	b = slices.Grow(b, size+len(r.Content)*len(`{"type":"text","text":""},`)+len(`{"content":[],"isError":true}`)+
		len(stampPrefix)+len(stamp))
	b = append(b, `{"content":[`...)
	for i, c := range r.Content {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"text","text":"`...)
		b = append(b, c.(*TextContent).Text...)
		b = append(b, `"}`...)
	}
	b = append(b, ']')
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	if stamp != nil {
		// The members encoding/json writes after isError: the
		// envelope's resultType, then the wire struct's _meta.
		b = append(b, stampPrefix...)
		b = append(b, stamp...)
	}
	return append(b, '}'), true
}

// stampPrefix comes before a stamped result's _meta (appendCallResult).
const stampPrefix = `,"resultType":"` + ResultComplete + `","_meta":`
