//go:build linux

package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
)

// A Process caches its server's tool list and drops the cache when the
// server says the list changed. With a 2026-07-28 server that came only on
// a listen the client never opened, so Tools kept the old list for the
// life of the process; in both eras it now sees the new tool.
func TestProcessToolsRefreshOnListChange(t *testing.T) {
	for _, v := range []string{mcp.Version20251125, mcp.Version20260728} {
		t.Run(v, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			h := newHeard()
			p := launch(t, helperCommand(t, "server"), &client.ProcessOptions{Client: h.options(&client.Options{ProtocolVersion: v})})
			has := func(name string) bool {
				tools, err := p.Tools(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for _, tl := range tools {
					if tl.Name == name {
						return true
					}
				}
				return false
			}
			if has("grown") {
				t.Fatal("the tool exists before grow")
			}
			if _, err := p.CallTool(ctx, "grow", nil); err != nil {
				t.Fatal(err)
			}
			waitFor(t, ctx, h.tools, "the tool list change")
			if !has("grown") {
				t.Error("Tools still lists the old tools after the server said they changed")
			}
		})
	}
}
