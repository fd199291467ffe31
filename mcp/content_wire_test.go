package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// The encoder before the wire forms, kept as the reference the wire forms
// must match byte for byte: every block and result went through nested
// MarshalJSON methods, each splicing "type" into encoding/json's output.

func legacyMarshalTyped(typ string, v any) ([]byte, error) {
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

// legacyBlock encodes a block as its MarshalJSON method did.
type legacyBlock struct{ c Content }

func (l legacyBlock) MarshalJSON() ([]byte, error) {
	switch c := l.c.(type) {
	case *TextContent:
		type plain TextContent
		return legacyMarshalTyped("text", (*plain)(c))
	case *ImageContent:
		type plain ImageContent
		return legacyMarshalTyped("image", (*plain)(c))
	case *AudioContent:
		type plain AudioContent
		return legacyMarshalTyped("audio", (*plain)(c))
	case *ResourceLink:
		type plain ResourceLink
		return legacyMarshalTyped("resource_link", (*plain)(c))
	case *EmbeddedResource:
		type plain EmbeddedResource
		return legacyMarshalTyped("resource", (*plain)(c))
	}
	return json.Marshal(l.c)
}

// legacyResult mirrors CallToolResult with blocks encoded the legacy way.
type legacyResult struct {
	Content           []legacyBlock `json:"content"`
	StructuredContent any           `json:"structuredContent,omitempty"`
	IsError           bool          `json:"isError,omitempty"`
	IsErrorSet        bool          `json:"-"`
	ResultEnvelope
}

func legacyMarshalResult(r *CallToolResult) ([]byte, error) {
	l := &legacyResult{Content: []legacyBlock{}, StructuredContent: r.StructuredContent, IsError: r.IsError, ResultEnvelope: r.ResultEnvelope}
	for _, c := range r.Content {
		l.Content = append(l.Content, legacyBlock{c})
	}
	if !r.IsErrorSet || r.IsError {
		return json.Marshal(l)
	}
	return json.Marshal(&struct {
		*legacyResult
		IsError bool `json:"isError"`
	}{l, false})
}

// wireSampleBlocks are blocks of every type, bare and with every optional
// member, with text that encoding/json must escape.
func wireSampleBlocks() []Content {
	ann := &Annotations{Audience: []Role{RoleUser, RoleAssistant}, Priority: Ptr(0.25), LastModified: "2025-01-01T00:00:00Z"}
	meta := Meta{"k": "v", "n": json.Number("12345678901234567890"), "nested": map[string]any{"<": []any{1, "&"}}}
	hard := "line\nbreak \"quoted\" <html> & \u2028 \x01 é \xff end"
	return []Content{
		&TextContent{},
		&TextContent{Text: "hi"},
		&TextContent{Text: hard, Annotations: ann, Meta: meta},
		&TextContent{Text: "x", Annotations: &Annotations{}, Meta: Meta{}},
		&ImageContent{},
		&ImageContent{Data: "AAAA", MIMEType: "image/png", Annotations: ann, Meta: meta},
		&AudioContent{Data: "AAAA", MIMEType: "audio/wav"},
		&AudioContent{Data: "AAAA", MIMEType: "audio/wav", Annotations: ann, Meta: meta},
		&ResourceLink{URI: "file:///a", Name: "a"},
		&ResourceLink{URI: "file:///a<b>", Name: "a", Title: "t", Description: hard, MIMEType: "text/plain", Size: Ptr(int64(0)),
			Icons: []Icon{{Src: "data:x", MIMEType: "image/png", Sizes: []string{"16x16"}, Theme: "dark"}}, Annotations: ann, Meta: meta},
		&ResourceLink{URI: "u", Name: "n", Icons: []Icon{}},
		&EmbeddedResource{},
		&EmbeddedResource{Resource: &ResourceContents{URI: "file:///a", Text: Ptr(hard)}},
		&EmbeddedResource{Resource: &ResourceContents{URI: "file:///b", MIMEType: "x/y", Blob: Ptr("AA=="), Meta: meta}, Annotations: ann, Meta: meta},
		&EmbeddedResource{Resource: &ResourceContents{URI: "file:///c", Text: Ptr("")}},
		&ToolUseContent{ID: "1", Name: "f"},
		&ToolUseContent{ID: "1", Name: "f", Input: map[string]any{"a": 1}, Meta: meta},
		&ToolResultContent{ToolUseID: "1"},
		&ToolResultContent{ToolUseID: "1", Content: []Content{&TextContent{Text: hard}}, StructuredContent: map[string]any{"a": 1}, IsError: Ptr(true), Meta: meta},
		&UnknownContent{Type: "hologram", Raw: json.RawMessage(`{"type":"hologram", "frames" : [1, 2],"t":"<&>"}`)},
	}
}

func TestWireContentMatchesLegacyEncoding(t *testing.T) {
	for i, c := range wireSampleBlocks() {
		want, err := json.Marshal(legacyBlock{c})
		if err != nil {
			t.Fatalf("block %d (%T): legacy: %v", i, c, err)
		}
		got, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("block %d (%T): %v", i, c, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("block %d (%T):\n got %s\nwant %s", i, c, got, want)
		}
		// The block's own MarshalJSON, called directly, too (an unknown
		// block returns what it holds, which encoding/json then compacts).
		if m, ok := c.(json.Marshaler); ok && wireContent(c) != c {
			direct, err := m.MarshalJSON()
			if err != nil || !bytes.Equal(direct, want) {
				t.Errorf("block %d (%T): MarshalJSON = %s, %v\nwant %s", i, c, direct, err, want)
			}
		}
	}
}

func TestWireResultMatchesLegacyEncoding(t *testing.T) {
	blocks := wireSampleBlocks()
	structured := []any{
		nil,
		map[string]any{"sum": 42, "s": "<&>"},
		json.RawMessage(`{"a": [1, 2], "b":"\u003c"}`),
		struct {
			A int `json:"a"`
		}{7},
		[]int{1},
	}
	envelopes := []ResultEnvelope{{}, {ResultType: ResultComplete}, {ResultType: ResultComplete, Meta: Meta{MetaServerInfo: Implementation{Name: "s", Version: "1"}}}, {Meta: Meta{}}}
	var cases []*CallToolResult
	for _, content := range [][]Content{nil, {}, blocks[:1], blocks, {nil}} {
		for _, sc := range structured {
			for _, env := range envelopes {
				for _, isErr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
					cases = append(cases, &CallToolResult{Content: content, StructuredContent: sc, IsError: isErr[0], IsErrorSet: isErr[1], ResultEnvelope: env})
				}
			}
		}
	}
	// Plain text, which appendCallResultFast writes itself.
	plain := []Content{&TextContent{Text: "hello"}, &TextContent{}, &TextContent{Text: " ~!#$%'()*+,-./09:;=?@AZ[]^_`az{|}"}}
	for _, content := range [][]Content{plain[:1], plain, {&TextContent{Text: "a\x7f"}}} {
		for _, isErr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			cases = append(cases, &CallToolResult{Content: content, IsError: isErr[0], IsErrorSet: isErr[1]})
		}
	}
	fast := 0
	for i, r := range cases {
		want, err := legacyMarshalResult(r)
		if err != nil {
			t.Fatalf("case %d: legacy: %v", i, err)
		}
		if got, ok := appendCallResultFast([]byte("x"), r); ok {
			fast++
			if !bytes.Equal(got[1:], want) || got[0] != 'x' {
				t.Errorf("case %d: appendCallResultFast:\n got %s\nwant x%s", i, got, want)
			}
		}
		for name, enc := range map[string]func() ([]byte, error){
			"json.Marshal": func() ([]byte, error) { return json.Marshal(r) },
			"wire":         func() ([]byte, error) { return json.Marshal(r.wire()) },
		} {
			got, err := enc()
			if err != nil {
				t.Fatalf("case %d: %s: %v", i, name, err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("case %d: %s:\n got %s\nwant %s", i, name, got, want)
			}
		}
	}
	if fast < 10 {
		t.Errorf("appendCallResultFast wrote only %d of the cases", fast)
	}
	if len(cases) < 100 {
		t.Fatal(fmt.Sprint("only ", len(cases), " cases"))
	}
}

// FuzzCallResultFast: appendCallResultFast writes what encoding/json
// writes for the wire form, whatever the text.
func FuzzCallResultFast(f *testing.F) {
	for _, s := range []string{"hello", "", "<&>", "a\"b\\c", "é", "\x7f", "\u2028"} {
		f.Add(s, s, false)
	}
	f.Fuzz(func(t *testing.T, a, b string, isErr bool) {
		r := &CallToolResult{Content: []Content{&TextContent{Text: a}, &TextContent{Text: b}}, IsError: isErr}
		got, ok := appendCallResultFast(nil, r)
		if !ok {
			return
		}
		want, err := json.Marshal(r.wire())
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("appendCallResultFast = %s, encoding/json %s (%v)", got, want, err)
		}
	})
}

// stampedByJSON is a stateless result's wire form as encoding/json
// writes it, stamped as stampCallResult stamps it.
func stampedByJSON(srv *Server, r *CallToolResult) ([]byte, error) {
	w := r.wireStruct()
	if w.ResultType == "" {
		w.ResultType = ResultComplete
	}
	if r.Meta == nil {
		w.Meta = srv.infoMeta
	} else {
		w.Meta = srv.withInfo(r.Meta)
	}
	return json.Marshal(w.form(r))
}

// appendCallResultStamped writes what encoding/json writes for a
// stamped result, and leaves to it what it cannot write.
func TestCallResultStamped(t *testing.T) {
	srv := NewServer(&Implementation{Name: "n<&>\"é", Version: "1", Icons: []Icon{{Src: "https://x/?a=1&b=2"}}}, nil)
	plain := []Content{&TextContent{Text: "hello"}, &TextContent{}}
	fast := 0
	for _, rt := range []string{"", ResultComplete, ResultInputRequired} {
		for _, meta := range []Meta{nil, {"k": "v"}} {
			for _, isErr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
				for _, content := range [][]Content{plain[:1], plain, {&TextContent{Text: "a<b"}}, nil} {
					r := &CallToolResult{Content: content, IsError: isErr[0], IsErrorSet: isErr[1], ResultEnvelope: ResultEnvelope{ResultType: rt, Meta: meta}}
					want, err := stampedByJSON(srv, r)
					if err != nil {
						t.Fatal(err)
					}
					got, ok := appendCallResultStamped([]byte("x"), r, srv.infoMetaJSON)
					if !ok {
						continue
					}
					fast++
					if !bytes.Equal(got[1:], want) || got[0] != 'x' {
						t.Errorf("%+v:\n got %s\nwant x%s", r, got, want)
					}
					if rt == ResultInputRequired || meta != nil {
						t.Errorf("%+v written, not left to encoding/json", r)
					}
				}
			}
		}
	}
	if fast < 10 {
		t.Errorf("appendCallResultStamped wrote only %d of the cases", fast)
	}
}

// FuzzCallResultStamped: appendCallResultStamped writes what encoding/json
// writes for the stamped wire form, whatever the text and the server's name.
func FuzzCallResultStamped(f *testing.F) {
	for _, s := range []string{"hello", "", "<&>", "a\"b\\c", "é", "\x7f", "\u2028"} {
		f.Add(s, s, false)
	}
	f.Fuzz(func(t *testing.T, a, name string, isErr bool) {
		srv := NewServer(&Implementation{Name: name, Version: "1"}, nil)
		r := &CallToolResult{Content: []Content{&TextContent{Text: a}}, IsError: isErr}
		got, ok := appendCallResultStamped(nil, r, srv.infoMetaJSON)
		if !ok {
			return
		}
		want, err := stampedByJSON(srv, r)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("appendCallResultStamped = %s, encoding/json %s (%v)", got, want, err)
		}
	})
}
