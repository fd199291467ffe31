package gateway

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp"
)

// promptServer is an in-process upstream with one prompt answering text.
func promptServer(text string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "p", Version: "1"}, nil)
	s.AddPrompt(&mcp.Prompt{Name: "greet"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
	})
	return s
}

// TestPromptFollowsReload: a Reload that replaces a server by another of
// the same name offering the same prompt must send prompts/get to the new
// one, not to the one it stopped.
func TestPromptFollowsReload(t *testing.T) {
	f := start(t, &Options{Servers: map[string]*mcp.Server{"p": promptServer("old")}}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if res, err := f.c.GetPrompt(ctx, "p__greet", nil); err != nil || res.Messages[0].Content.(*mcp.TextContent).Text != "old" {
		t.Fatalf("before: %v %+v", err, res)
	}
	// Whether the new server has listed when Reload rebuilds is a race;
	// reloading many times makes the case of one that has
	// (and so keeps its definition) all but certain.
	for i := range 30 {
		want := fmt.Sprint("new ", i)
		if err := f.g.Reload(&Options{Servers: map[string]*mcp.Server{"p": promptServer(want)}}); err != nil {
			t.Fatal(err)
		}
		if err := f.g.waitSettled(ctx); err != nil {
			t.Fatal(err)
		}
		res, err := f.c.GetPrompt(ctx, "p__greet", nil)
		if err != nil || res.Messages[0].Content.(*mcp.TextContent).Text != want {
			t.Fatalf("after reload %d: %v %+v", i, err, res)
		}
	}
}
