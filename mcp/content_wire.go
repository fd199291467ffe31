package mcp

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
