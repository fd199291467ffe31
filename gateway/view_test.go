package gateway

import (
	"context"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// TestProfilesPerServer: two profiles over the same upstreams, each with
// its own surface; a reload reaches both.
func TestProfilesPerServer(t *testing.T) {
	pol := mustPolicy(t, `{"profiles":{
		"default":{"target":"anthropic"},
		"strict":{"target":"openai-strict","deny":["up/delete"],"maxNameLength":20}}}`)
	f := start(t, &Options{Servers: inproc(), Policy: pol}, nil)
	srv, err := f.g.ServerFor("strict")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := f.g.ServerFor("strict"); again != srv {
		t.Error("a second server for the same profile")
	}
	if _, err := f.g.ServerFor("nope"); err == nil {
		t.Error("an unknown profile was served")
	}
	a, b := transport.Pipe(nil)
	srv.Connect(a)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, b, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	strict := map[string]*mcp.Tool{}
	for _, tl := range tools {
		strict[tl.Name] = tl
		if len(tl.Name) > 20 {
			t.Errorf("%q is longer than the profile allows", tl.Name)
		}
		m, _ := decodeSchema(tl.InputSchema)
		if p := checkOpenAIStrict(m); len(p) > 0 {
			t.Errorf("%s: %v", tl.Name, p)
		}
	}
	if strict["up__delete"] != nil || strict["up__echo"] == nil {
		t.Errorf("strict profile lists %v", keys(strict))
	}
	if f.names(t)["up__delete"] == nil {
		t.Error("the default profile lost delete")
	}
	res, err := c.CallTool(ctx, "up__echo", map[string]any{"text": "via strict"})
	if err != nil || res.IsError || res.TextOf() != "via strict" {
		t.Fatalf("%v %+v", err, res)
	}
	if rec := f.audit.last(t); rec["profile"] != "strict" {
		t.Errorf("audit profile %v", rec["profile"])
	}
	// A reload reaches every profile.
	pol2 := mustPolicy(t, `{"profiles":{"default":{},"strict":{"target":"openai-strict","deny":["up/*"]}}}`)
	if err := f.g.Reload(&Options{Servers: f.g.opts.Servers, Policy: pol2}); err != nil {
		t.Fatal(err)
	}
	if tools, _ := c.ListTools(ctx); len(tools) != 0 {
		t.Errorf("after reload the strict profile lists %d tools", len(tools))
	}
}
