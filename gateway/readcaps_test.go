package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp"
)

// bigReads serves a resource and a prompt past the caps: a text past the
// block cap, a blob past it, and more after the total.
func bigReads() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "1"}, nil)
	s.AddResource(&mcp.Resource{URI: "mem://big", Name: "big"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: "mem://big", Text: mcp.Ptr(strings.Repeat("é", 100<<10))},
			{URI: "mem://big#img", MIMEType: "image/png", Blob: mcp.Ptr(strings.Repeat("A", 200<<10))},
			{URI: "mem://big#a", Text: mcp.Ptr(strings.Repeat("a", 9000))},
			{URI: "mem://big#tail", Text: mcp.Ptr("tail")},
		}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "big"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.TextContent{Text: strings.Repeat("é", 100<<10)}},
			{Role: "assistant", Content: &mcp.ImageContent{Data: strings.Repeat("A", 200<<10), MIMEType: "image/png"}},
			{Role: "user", Content: &mcp.TextContent{Text: strings.Repeat("a", 9000)}},
			{Role: "assistant", Content: &mcp.TextContent{Text: "tail"}},
		}}, nil
	})
	return s
}

func cutMeta(t *testing.T, m mcp.Meta) map[string]any {
	t.Helper()
	meta, _ := m[MetaKey].(map[string]any)
	if meta == nil || meta["cut"] != true {
		t.Fatalf("_meta: %v", m)
	}
	return meta
}

// TestReadAndPromptCaps: resources/read and prompts/get results are cut to
// limits.maxBlockBytes and maxResultBytes, with the marker and _meta of
// tool results.
func TestReadAndPromptCaps(t *testing.T) {
	pol := mustPolicy(t, `{"limits":{"maxBlockBytes":10000,"maxResultBytes":15000}}`)
	f := start(t, &Options{Servers: map[string]*mcp.Server{"big": bigReads()}, Policy: pol}, nil)
	ctx := context.Background()

	res, err := f.c.ReadResource(ctx, "mem://big")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, rc := range res.Contents {
		if rc.Text != nil {
			total += len(*rc.Text)
		}
		if rc.Blob != nil {
			t.Errorf("a blob came through: %d bytes", len(*rc.Blob))
		}
	}
	if total > 15000+200 {
		t.Errorf("resources/read: %d bytes came through", total)
	}
	if first := *res.Contents[0].Text; !strings.Contains(first, "[cut by the gateway") || len(first) > 10000 || res.Contents[0].URI != "mem://big" {
		t.Errorf("first contents: %d bytes, uri %q", len(first), res.Contents[0].URI)
	}
	if img := res.Contents[1]; img.URI != "mem://big#img" || !strings.Contains(*img.Text, "removed by the gateway") {
		t.Errorf("the blob was not replaced: %+v", img)
	}
	cutMeta(t, res.Meta)

	pr, err := f.c.GetPrompt(ctx, "big__big", nil)
	if err != nil {
		t.Fatal(err)
	}
	total = 0
	for _, m := range pr.Messages {
		n, kind := blockSize(m.Content)
		if kind != "text" {
			t.Errorf("a %s block came through", kind)
		}
		total += n
	}
	if total > 15000+200 {
		t.Errorf("prompts/get: %d bytes came through", total)
	}
	if first := pr.Messages[0].Content.(*mcp.TextContent).Text; !strings.Contains(first, "[cut by the gateway") || len(first) > 10000 {
		t.Errorf("first message: %d bytes", len(first))
	}
	if m := pr.Messages[1]; m.Role != "assistant" || !strings.Contains(m.Content.(*mcp.TextContent).Text, "image block of") {
		t.Errorf("the image was not replaced: %+v", m)
	}
	cutMeta(t, pr.Meta)
}

// TestCapBlocksLeavesInput: capping returns new blocks and leaves the
// input as it was (an in-process upstream's result may be its own value).
func TestCapBlocksLeavesInput(t *testing.T) {
	in := []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", 100)}, &mcp.TextContent{Text: "y"}}
	out, _, meta := capBlocks(in, 50, 60)
	if meta == nil || len(out) != 2 {
		t.Fatalf("%v %v", out, meta)
	}
	if in[0].(*mcp.TextContent).Text != strings.Repeat("x", 100) {
		t.Error("the input was changed")
	}
	if same, _, meta := capBlocks(in[1:], 50, 60); meta != nil || &same[0] != &in[1] {
		t.Error("an uncut list was copied or marked")
	}
}

// TestCapReadDrops: contents past the total are dropped, and the note
// that says so is a text contents entry.
func TestCapReadDrops(t *testing.T) {
	res := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
		{URI: "a", Text: mcp.Ptr(strings.Repeat("a", 100))}, {URI: "b", Text: mcp.Ptr(strings.Repeat("b", 100))}, {URI: "c", Text: mcp.Ptr("c")}, nil}}
	capRead(res, 1000, 105)
	if len(res.Contents) != 3 || res.Contents[0].URI != "a" || res.Contents[1].URI != "b" || res.Contents[2].URI != "c" {
		t.Fatalf("%+v", res.Contents)
	}
	if !strings.Contains(*res.Contents[2].Text, "2 more content blocks were dropped") {
		t.Errorf("note: %q", *res.Contents[2].Text)
	}
	if meta := cutMeta(t, res.Meta); meta["droppedBlocks"] != 2 {
		t.Errorf("_meta: %v", meta)
	}
	pr := &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: strings.Repeat("a", 100)}},
		{Role: "user", Content: &mcp.TextContent{Text: strings.Repeat("b", 100)}}, {Role: "assistant", Content: &mcp.TextContent{Text: "c"}}}}
	capPrompt(pr, 1000, 105)
	if len(pr.Messages) != 3 || pr.Messages[2].Role != "assistant" || !strings.Contains(pr.Messages[2].Content.(*mcp.TextContent).Text, "dropped") {
		t.Errorf("%+v", pr.Messages[2])
	}
}

// TestCapBlocksWeighWholeBlock: a block's bytes are not only its text or
// data. An upstream can put what it likes in a resource's uri or
// mimeType, an image's mimeType, or a block's annotations and _meta, and
// all of it reaches the client: the caps must weigh it.
func TestCapBlocksWeighWholeBlock(t *testing.T) {
	big := strings.Repeat("u", 100_000)
	in := []mcp.Content{
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///" + big, Text: mcp.Ptr("x")}},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a", MIMEType: big, Blob: mcp.Ptr("AAAA")}},
		&mcp.TextContent{Text: "x", Meta: mcp.Meta{"k": big}},
		&mcp.TextContent{Text: "x", Annotations: &mcp.Annotations{LastModified: big}},
		&mcp.ImageContent{Data: "AAAA", MIMEType: big},
		&mcp.TextContent{Text: strings.Repeat("t", 300), Meta: mcp.Meta{"k": strings.Repeat("m", 500)}},
	}
	const blockCap, totalCap = 1000, 100_000
	out, total, meta := capBlocks(in, blockCap, totalCap)
	if meta == nil {
		t.Fatal("nothing was cut")
	}
	sum := 0
	for i, b := range out {
		enc, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		// The encoding adds a few bytes of its own (names, quotes).
		if len(enc) > blockCap+200 {
			t.Errorf("block %d encodes to %d bytes, over the %d-byte cap", i, len(enc), blockCap)
		}
		sum += len(enc)
	}
	if sum > totalCap || total > totalCap {
		t.Errorf("%d bytes encoded, %d counted; the cap is %d", sum, total, totalCap)
	}
	// A read's contents entry that is removed leaves a note with its
	// uri: not a uri that is itself over the cap.
	res := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///" + big, Text: mcp.Ptr("x")}}}
	capRead(res, blockCap, totalCap)
	if enc, _ := json.Marshal(res.Contents); len(enc) > blockCap+200 {
		t.Errorf("the read's contents encode to %d bytes, over the %d-byte cap", len(enc), blockCap)
	}
}

// TestCapBlocksCountEmptyBlocks: a block with no text still costs its
// encoding, so a result of a million empty blocks would pass byte caps
// that weigh only payloads. The number of blocks is bounded too.
func TestCapBlocksCountEmptyBlocks(t *testing.T) {
	in := make([]mcp.Content, 200_000)
	for i := range in {
		in[i] = &mcp.TextContent{}
	}
	const totalCap = 64 << 10
	out, _, meta := capBlocks(in, 1000, totalCap)
	if meta == nil {
		t.Fatal("nothing was cut")
	}
	enc, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(enc) > 2*totalCap {
		t.Errorf("%d blocks encode to %d bytes; the cap is %d", len(out), len(enc), totalCap)
	}
	if !strings.Contains(out[len(out)-1].(*mcp.TextContent).Text, "dropped") {
		t.Error("no note on the dropped blocks")
	}
}
