package mcp

import (
	"context"
	"encoding/json"
	"maps"
	"sync"
	"testing"
)

// stampCallResult encodes a tool result exactly as stamping the result
// itself (finish) and encoding it did, byte for byte, in both eras.
func TestStampCallResultEncodesAsFinish(t *testing.T) {
	srv := NewServer(&Implementation{Name: "s", Version: "1", Icons: []Icon{{Src: "i"}}}, nil)
	ss := newServerSession(srv)
	results := []*CallToolResult{
		{Content: []Content{&TextContent{Text: "t"}}},
		{Content: []Content{&TextContent{Text: "t"}}, IsError: true, IsErrorSet: true},
		{Content: []Content{}, IsErrorSet: true},
		{StructuredContent: map[string]any{"a": 1}, ResultEnvelope: ResultEnvelope{Meta: Meta{"z": 1, "a": []any{"x"}}}},
		{ResultEnvelope: ResultEnvelope{ResultType: "custom", Meta: Meta{}}},
		{ResultEnvelope: ResultEnvelope{Meta: Meta{MetaServerInfo: "the handler's"}}},
	}
	for _, stateless := range []bool{false, true} {
		ci := &callInfo{stateless: stateless, client: &noClient}
		for i, res := range results {
			old := *res
			old.Meta = maps.Clone(res.Meta)
			ss.finish(ci, &old.ResultEnvelope)
			want, err := json.Marshal(old.wire())
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(ss.stampCallResult(ci, res))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("stateless %v, result %d:\n got %s\nwant %s", stateless, i, got, want)
			}
		}
	}
}

// A handler may return one result to every call: stamping it for a
// stateless response writes nothing to it (run with -race).
func TestSharedToolResultNotWritten(t *testing.T) {
	srv := NewServer(&Implementation{Name: "s", Version: "1"}, nil)
	shared := &CallToolResult{Content: []Content{&TextContent{Text: "same"}}, ResultEnvelope: ResultEnvelope{Meta: Meta{"k": "v"}}}
	srv.AddTool(&Tool{Name: "same", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *CallToolRequest) (*CallToolResult, error) { return shared, nil })
	ci := &callInfo{stateless: true, client: &noClient}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			ss := newServerSession(srv)
			b, err := json.Marshal(ss.stampCallResult(ci, shared))
			if err != nil {
				t.Error(err)
			}
			var got struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			}
			if err := json.Unmarshal(b, &got); err != nil || string(got.Meta["k"]) != `"v"` || got.Meta[MetaServerInfo] == nil {
				t.Errorf("%s", b)
			}
		})
	}
	wg.Wait()
	if len(shared.Meta) != 1 || shared.ResultType != "" {
		t.Fatalf("the shared result was changed: %+v", shared.ResultEnvelope)
	}
}

// A prompt or resource handler may return one result to every call too:
// the server stamps its own copy of it, and the handler's Meta map, which
// the copy shares, is not written (run with -race).
func TestFinishDoesNotWriteTheHandlersMeta(t *testing.T) {
	ss := newServerSession(NewServer(&Implementation{Name: "s", Version: "1"}, nil))
	shared := &GetPromptResult{Description: "d", ResultEnvelope: ResultEnvelope{Meta: Meta{"k": "v"}}}
	ci := &callInfo{stateless: true, client: &noClient}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			c := *shared
			ss.finish(ci, &c.ResultEnvelope)
			if c.Meta["k"] != "v" || c.Meta[MetaServerInfo] == nil || c.ResultType != ResultComplete {
				t.Errorf("stamped: %+v", c.ResultEnvelope)
			}
		})
	}
	wg.Wait()
	if len(shared.Meta) != 1 || shared.ResultType != "" {
		t.Fatalf("the handler's result was changed: %+v", shared.ResultEnvelope)
	}
}
