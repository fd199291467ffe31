package mcp

import (
	"encoding/json"
	"fmt"

	"github.com/winbridge/winbridge/internal/jsonscan"
	"github.com/winbridge/winbridge/internal/wirenames"
)

// Content is a content block: *TextContent, *ImageContent, *AudioContent,
// *ResourceLink, *EmbeddedResource, or, in sampling messages,
// *ToolUseContent and *ToolResultContent. A block of a type this package
// does not know decodes as *UnknownContent and encodes back unchanged.
type Content interface {
	contentType() string
}

// TextContent is text.
type TextContent struct {
	Text        string       `json:"text"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitzero"`
}

// ImageContent is an image, base64-encoded.
type ImageContent struct {
	Data        string       `json:"data"`
	MIMEType    string       `json:"mimeType"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitzero"`
}

// AudioContent is audio, base64-encoded.
type AudioContent struct {
	Data        string       `json:"data"`
	MIMEType    string       `json:"mimeType"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitzero"`
}

// ResourceLink points at a resource the client can read.
type ResourceLink struct {
	URI         string       `json:"uri"`
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	MIMEType    string       `json:"mimeType,omitempty"`
	Size        *int64       `json:"size,omitempty"`
	Icons       []Icon       `json:"icons,omitzero"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitzero"`
}

// EmbeddedResource carries a resource's contents inline.
type EmbeddedResource struct {
	Resource    *ResourceContents `json:"resource"`
	Annotations *Annotations      `json:"annotations,omitempty"`
	Meta        Meta              `json:"_meta,omitzero"`
}

// ResourceContents is the contents of a resource: Text for text, Blob
// (base64) for binary data. Exactly one of them is set.
type ResourceContents struct {
	URI      string  `json:"uri"`
	MIMEType string  `json:"mimeType,omitempty"`
	Text     *string `json:"text,omitempty"`
	Blob     *string `json:"blob,omitempty"`
	Meta     Meta    `json:"_meta,omitzero"`
}

// ToolUseContent is a model's request to call a tool, in sampling.
type ToolUseContent struct {
	ID    string         `json:"id"`
	Name  string         `json:"name"`
	Input map[string]any `json:"input"`
	Meta  Meta           `json:"_meta,omitzero"`
}

// ToolResultContent is the result of a tool use, in sampling.
type ToolResultContent struct {
	ToolUseID         string    `json:"toolUseId"`
	Content           []Content `json:"content"`
	StructuredContent any       `json:"structuredContent,omitempty"`
	IsError           *bool     `json:"isError,omitempty"`
	Meta              Meta      `json:"_meta,omitzero"`
}

// UnknownContent is a content block of a type this package does not know,
// kept as received.
type UnknownContent struct {
	Type string
	Raw  json.RawMessage
}

func (*TextContent) contentType() string       { return "text" }
func (*ImageContent) contentType() string      { return "image" }
func (*AudioContent) contentType() string      { return "audio" }
func (*ResourceLink) contentType() string      { return "resource_link" }
func (*EmbeddedResource) contentType() string  { return "resource" }
func (*ToolUseContent) contentType() string    { return "tool_use" }
func (*ToolResultContent) contentType() string { return "tool_result" }
func (c *UnknownContent) contentType() string  { return c.Type }

// The MarshalJSON methods add the "type" member that tells blocks apart,
// through the wire forms of content_wire.go.

// MarshalJSON implements json.Marshaler.
func (c *TextContent) MarshalJSON() ([]byte, error) { return json.Marshal(wireContent(c)) }

// MarshalJSON implements json.Marshaler.
func (c *ImageContent) MarshalJSON() ([]byte, error) { return json.Marshal(wireContent(c)) }

// MarshalJSON implements json.Marshaler.
func (c *AudioContent) MarshalJSON() ([]byte, error) { return json.Marshal(wireContent(c)) }

// MarshalJSON implements json.Marshaler.
func (c *ResourceLink) MarshalJSON() ([]byte, error) { return json.Marshal(wireContent(c)) }

// MarshalJSON implements json.Marshaler.
func (c *EmbeddedResource) MarshalJSON() ([]byte, error) { return json.Marshal(wireContent(c)) }

// MarshalJSON implements json.Marshaler.
func (c *ToolUseContent) MarshalJSON() ([]byte, error) {
	type plain ToolUseContent
	if c.Input == nil {
		cp := *c
		cp.Input = map[string]any{}
		return marshalTyped("tool_use", (*plain)(&cp))
	}
	return marshalTyped("tool_use", (*plain)(c))
}

// MarshalJSON implements json.Marshaler.
func (c *ToolResultContent) MarshalJSON() ([]byte, error) {
	type plain ToolResultContent
	if c.Content == nil {
		cp := *c
		cp.Content = []Content{}
		return marshalTyped("tool_result", (*plain)(&cp))
	}
	return marshalTyped("tool_result", (*plain)(c))
}

// MarshalJSON implements json.Marshaler.
func (c *UnknownContent) MarshalJSON() ([]byte, error) { return c.Raw, nil }

// marshalTyped encodes v, an object, with "type" as its first member.
func marshalTyped(typ string, v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(b)+len(typ)+10)
	out = append(out, `{"type":"`...)
	out = append(out, typ...)
	out = append(out, '"')
	if len(b) > 2 {
		out = append(out, ',')
	}
	return append(out, b[1:]...), nil
}

// decodeContent decodes one content block by its "type".
func decodeContent(raw json.RawMessage) (Content, error) {
	if jsonscan.Valid(raw) {
		if c, ok := decodeBlockFast(raw); ok {
			return c, nil
		}
	}
	return decodeContentSlow(raw)
}

// decodeContentSlow is decodeContent with encoding/json alone: the
// reference for decodeBlockFast, and the decoder of what it leaves.
func decodeContentSlow(raw json.RawMessage) (Content, error) {
	var head struct {
		Type string `json:"type"`
	}
	// The discriminator is read without decoding the block: a block can be
	// megabytes of text or base64 that would otherwise be scanned twice.
	if !json.Valid(raw) {
		var v any
		return nil, json.Unmarshal(raw, &v) // says what is wrong
	}
	// A "type" member spelled exactly wins over ones in other cases, which
	// encoding/json would also take: an escaped type (as encoding/json
	// writes "<" and ">") must not read differently once re-encoded.
	if t, ok := jsonscan.Member(raw, "type"); ok && len(t) > 0 && t[0] == '"' {
		if head.Type, ok = wirenames.Unquote(t); !ok {
			return nil, fmt.Errorf("content block: malformed \"type\" %s", t)
		}
	} else if err := json.Unmarshal(raw, &head); err != nil {
		return nil, err
	}
	var c Content
	switch head.Type {
	case "text":
		c = new(TextContent)
	case "image":
		c = new(ImageContent)
	case "audio":
		c = new(AudioContent)
	case "resource_link":
		c = new(ResourceLink)
	case "resource":
		c = new(EmbeddedResource)
	case "tool_use":
		c = new(ToolUseContent)
	case "tool_result":
		c = new(ToolResultContent)
	case "":
		return nil, fmt.Errorf(`content block without "type"`)
	default:
		return &UnknownContent{Type: head.Type, Raw: append(json.RawMessage(nil), raw...)}, nil
	}
	if err := json.Unmarshal(raw, c); err != nil {
		return nil, fmt.Errorf("%s content: %w", head.Type, err)
	}
	return c, nil
}

// contentList decodes a JSON array of content blocks.
type contentList []Content

// UnmarshalJSON implements json.Unmarshaler.
func (l *contentList) UnmarshalJSON(b []byte) error {
	if jsonscan.Valid(b) {
		if out, ok := decodeContentsFast(b); ok {
			*l = out
			return nil
		}
	}
	return l.unmarshalSlow(b)
}

// unmarshalSlow is UnmarshalJSON with encoding/json alone.
func (l *contentList) unmarshalSlow(b []byte) error {
	var raws []json.RawMessage
	if err := json.Unmarshal(b, &raws); err != nil {
		return err
	}
	out := make([]Content, len(raws))
	for i, r := range raws {
		c, err := decodeContent(r)
		if err != nil {
			return fmt.Errorf("content[%d]: %w", i, err)
		}
		out[i] = c
	}
	*l = out
	return nil
}

// MaxToolResultDepth bounds how deep a tool_result block nests (objects
// and arrays, counted from the block). Each tool_result level is decoded
// on its own, and encoding/json reads the whole text below it again: a
// sampling request of tool_results nested thousands deep cost the square
// of its size (10 MB took minutes of CPU). Blocks of any use nest a few
// levels.
const MaxToolResultDepth = 64

// UnmarshalJSON implements json.Unmarshaler.
func (c *ToolResultContent) UnmarshalJSON(b []byte) error {
	// Checked before anything reads b: a block too deep is told apart in
	// the time of MaxToolResultDepth brackets, and the levels below a
	// block that passes are bounded.
	if jsonscan.NestsDeeper(b, MaxToolResultDepth) {
		return fmt.Errorf("nests deeper than %d levels", MaxToolResultDepth)
	}
	type plain ToolResultContent
	var v struct {
		*plain
		Content contentList `json:"content"`
	}
	v.plain = (*plain)(c)
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	c.Content = v.Content
	return nil
}
