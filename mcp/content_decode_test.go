package mcp

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The fast decoders must decode exactly as the encoding/json path they
// stand in for: same values, same errors. These tests and fuzzers compare
// them on the same input.

var blockSeeds = []string{
	`{"type":"text","text":"hi"}`,
	`{"type":"text","text":"a\nb\u00e9\ud83d\ude00","annotations":{"audience":["user"],"priority":0.5},"_meta":{"n":12345678901234567890}}`,
	`{"type":"text"}`, `{"type":"text","text":null}`, `{"type":"text","text":5}`, `{"type":"text","Text":"x"}`,
	`{"type":"text","text":"a","text":"b"}`, `{"TYPE":"text","text":"x"}`, `{"type":"te\u0078t","text":"x"}`,
	`{"type":"text","text":"x","annotations":null,"_meta":null}`, `{"type":"text","text":"x","annotations":[]}`,
	`{"type":"text","text":"x","_meta":{"a":[1,{"b":null}]},"extra":{"deep":[true]}}`,
	"{\"type\":\"text\",\"text\":\"\xff\xfe\"}", `{"type":"text","text":"x","data":"y"}`,
	`{"type":"image","data":"AAAA","mimeType":"image/png"}`, `{"type":"image","data":"AAAA"}`, `{"type":"image","mimeType":7}`,
	`{"type":"audio","data":"AAAA","mimeType":"audio/wav","annotations":{"lastModified":"x"}}`,
	`{"type":"resource","resource":{"uri":"file:///a","text":"t"}}`,
	`{"type":"resource","resource":{"uri":"file:///a","blob":"AA==","mimeType":"x/y","_meta":{}}}`,
	`{"type":"resource","resource":{"uri":"file:///a","text":null,"blob":null}}`, `{"type":"resource","resource":null}`,
	`{"type":"resource"}`, `{"type":"resource","resource":"s"}`, `{"type":"resource","resource":{"URI":"u"}}`,
	`{"type":"resource","resource":{"uri":"u","text":"a","text":"b"}}`, `{"type":"resource","resource":{"uri":5}}`,
	`{"type":"resource_link","uri":"file:///a","name":"a","size":0,"icons":[]}`,
	`{"type":"tool_use","id":"1","name":"f","input":{}}`, `{"type":"tool_result","toolUseId":"1","content":[{"type":"text","text":"x"}]}`,
	`{"type":"hologram","frames":[1,2,3]}`, `{"text":"x"}`, `{"type":5}`, `{"type":null,"text":"x"}`, `{"type":""}`,
	`[]`, `"text"`, `null`, `{"type":"text","text":"x"`, ` {"type" : "text" , "text" : "y" } `,
}

func checkBlock(t *testing.T, raw []byte) {
	got, gotErr := decodeContent(raw)
	want, wantErr := decodeContentSlow(raw)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("%q: error %v, want %v", raw, gotErr, wantErr)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%q: (-want +got)\n%s", raw, diff)
	}
}

func TestDecodeBlockFastMatchesEncodingJSON(t *testing.T) {
	for _, s := range blockSeeds {
		checkBlock(t, []byte(s))
	}
	for _, c := range wireSampleBlocks() {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		checkBlock(t, b)
	}
}

func FuzzDecodeBlockFast(f *testing.F) {
	for _, s := range blockSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkBlock(t, raw) })
}

var resultSeeds = []string{
	`{"content":[{"type":"text","text":"hi"}]}`,
	`{"content":[{"type":"text","text":"hi"},{"type":"image","data":"AA","mimeType":"image/png"},{"type":"hologram"}],"structuredContent":{"a":[1.5,"x"]},"isError":true,"resultType":"complete","_meta":{"n":1}}`,
	`{"content":[],"isError":false}`, `{"content":null}`, `{}`, `{"isError":null}`, `{"isError":"true"}`,
	`{"content":{}}`, `{"content":[5]}`, `{"content":[{"type":"text","text":5}]}`, `{"content":[{"text":"x"}]}`,
	`{"Content":[]}`, `{"content":[],"content":[]}`, `{"content":[],"structuredContent":null}`,
	`{"content":[],"structuredContent":1e400}`, `{"content":[],"resultType":null}`, `{"content":[],"resultType":7}`,
	`{"content":[],"_meta":null}`, `{"content":[],"_meta":[]}`, `{"content":[],"isERROR":true}`,
	`{"content":[{"type":"text","text":"x"}],"other":{"x":[{"y":"z"}]}}`, `[]`, `null`, `"x"`, `{"content":[`,
	` { "content" : [ { "type" : "text" , "text" : "x" } ] } `,
}

// resultStarts are results to decode into: fresh, and reused with values
// that a decode keeps or replaces.
func resultStarts() []*CallToolResult {
	return []*CallToolResult{
		{},
		{Content: []Content{&TextContent{Text: "old"}}, IsError: true, IsErrorSet: true, ResultEnvelope: ResultEnvelope{ResultType: "old", Meta: Meta{"old": true}}},
		{StructuredContent: &struct {
			A []any `json:"a"`
		}{}},
	}
}

func checkResult(t *testing.T, raw []byte) {
	for i, start := range resultStarts() {
		got, want := *start, *resultStarts()[i]
		gotErr := got.UnmarshalJSON(raw)
		wantErr := want.unmarshalSlow(raw)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("%q into start %d: error %v, want %v", raw, i, gotErr, wantErr)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%q into start %d: (-want +got)\n%s", raw, i, diff)
		}
	}
	var got, want contentList
	gotErr, wantErr := got.UnmarshalJSON(raw), want.unmarshalSlow(raw)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("%q as a content list: error %v, want %v", raw, gotErr, wantErr)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%q as a content list: (-want +got)\n%s", raw, diff)
	}
}

func TestDecodeResultFastMatchesEncodingJSON(t *testing.T) {
	for _, s := range resultSeeds {
		checkResult(t, []byte(s))
	}
	for _, s := range blockSeeds {
		checkResult(t, []byte(`{"content":[`+s+`]}`))
		checkResult(t, []byte(`[`+s+`]`))
	}
	r := &CallToolResult{Content: wireSampleBlocks(), StructuredContent: map[string]any{"x": 1}, IsErrorSet: true}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, b)
}

func FuzzDecodeResultFast(f *testing.F) {
	for _, s := range resultSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkResult(t, raw) })
}
