package gateway

import "github.com/winbridge/winbridge/mcp"

// The byte caps of tool results (limits.maxBlockBytes, maxResultBytes)
// apply to resources/read and prompts/get too: a resource or a prompt
// goes into the model's context as surely as a tool result does, and an
// upstream could otherwise fill it up to the upstream message cap.

// capRead caps the contents of a resources/read result in place: each
// contents entry counts as a block (its text, or its base64 blob); the
// result's own _meta is bounded as a tool result's (boundMeta); neither
// it nor an entry's keeps the keys an upstream may not write
// (reserved.go).
func capRead(res *mcp.ReadResourceResult, blockCap, totalCap int) {
	res.Meta, _ = upstreamMeta(res.Meta)
	for i, rc := range res.Contents {
		res.Contents[i], _ = upstreamContents(rc)
	}
	blocks := make([]mcp.Content, len(res.Contents))
	for i, rc := range res.Contents {
		if rc == nil {
			rc = &mcp.ResourceContents{}
		}
		blocks[i] = &mcp.EmbeddedResource{Resource: rc}
	}
	out, _, meta := capBlocks(blocks, blockCap, totalCap)
	if meta == nil {
		res.Meta, meta = boundMeta(res.Meta, blockCap, totalCap, nil)
		if meta != nil {
			res.Meta = withCutMeta(res.Meta, meta)
		}
		return
	}
	contents := make([]*mcp.ResourceContents, len(out))
	for i, b := range out {
		// out[i] stands for Contents[i]; a dropped-blocks note is last.
		src := res.Contents[min(i, len(res.Contents)-1)]
		switch b := b.(type) {
		case *mcp.EmbeddedResource:
			contents[i] = b.Resource
		case *mcp.TextContent:
			rc := &mcp.ResourceContents{MIMEType: "text/plain", Text: mcp.Ptr(b.Text)}
			if src != nil && len(src.URI) <= blockCap/2 {
				// Not a uri that is itself what the cap removed.
				rc.URI = src.URI
			}
			contents[i] = rc
		}
	}
	res.Contents = contents
	res.Meta, meta = boundMeta(res.Meta, blockCap, totalCap, meta)
	res.Meta = withCutMeta(res.Meta, meta)
}

// capPrompt caps the messages of a prompts/get result in place: each
// message's content counts as a block; the result's own _meta is bounded
// as a tool result's (boundMeta); neither it nor a message's content
// keeps the keys an upstream may not write (reserved.go). The note on dropped messages takes the role of the
// first message it stands for.
func capPrompt(res *mcp.GetPromptResult, blockCap, totalCap int) {
	res.Meta, _ = upstreamMeta(res.Meta)
	for _, m := range res.Messages {
		if m != nil {
			m.Content, _ = upstreamBlock(m.Content)
		}
	}
	blocks := make([]mcp.Content, len(res.Messages))
	for i, m := range res.Messages {
		if m != nil {
			blocks[i] = m.Content
		}
	}
	out, _, meta := capBlocks(blocks, blockCap, totalCap)
	if meta == nil {
		res.Meta, meta = boundMeta(res.Meta, blockCap, totalCap, nil)
		if meta != nil {
			res.Meta = withCutMeta(res.Meta, meta)
		}
		return
	}
	msgs := make([]*mcp.PromptMessage, len(out))
	for i, b := range out {
		src := res.Messages[min(i, len(res.Messages)-1)]
		m := &mcp.PromptMessage{Role: "user", Content: b}
		if src != nil {
			m.Role = src.Role
		}
		msgs[i] = m
	}
	res.Messages = msgs
	res.Meta, meta = boundMeta(res.Meta, blockCap, totalCap, meta)
	res.Meta = withCutMeta(res.Meta, meta)
}
