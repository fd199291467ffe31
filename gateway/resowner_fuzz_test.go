package gateway

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// FuzzResourceOwner checks the facade's decision on who answers a read:
// three upstreams list fixed URIs (lines starting with "=") and templates
// (other lines); a read of uri reaches an upstream only when that
// upstream is the one that claims uri, by a fixed URI or a template that
// matches it, and reaches none when two claim it.
func FuzzResourceOwner(f *testing.F) {
	f.Add("=file:///a", "file:///{x}", "", "file:///a")
	f.Add("file:///{+p}", "=file:///a/b", "file:///a/{x}", "file:///a/b")
	f.Add("mem://{x}", "mem://{x}", "mem://{+y}", "mem://q")
	f.Add("=mem://a", "=mem://a", "mem://{x}", "mem://a")
	f.Add("x{#f}", "", "x{+p}", "x#f")
	f.Fuzz(func(t *testing.T, a, b, c, uri string) {
		if !utf8.ValidString(a+b+c+uri) || uri == "" {
			return
		}
		g := &Gateway{log: slog.New(slog.NewTextHandler(io.Discard, nil)), info: &mcp.Implementation{Name: "g", Version: "1"}}
		st, err := newSettings(&Policy{}, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		v := g.newView("", st)
		var ups []*upstream
		claims := map[string]bool{}
		for i, spec := range []string{a, b, c} {
			u := &upstream{g: g, name: string(rune('a' + i)), state: StateReady}
			for line := range strings.SplitSeq(spec, "\n") {
				if uri0, fixed := strings.CutPrefix(line, "="); fixed {
					if uri0 != "" && len(uri0) <= maxListedURIBytes {
						u.resources = append(u.resources, &mcp.Resource{URI: uri0, Name: "r"})
						if uri0 == uri {
							claims[u.name] = true
						}
					}
				} else if line != "" && len(line) <= maxListedURIBytes {
					u.templates = append(u.templates, &mcp.ResourceTemplate{URITemplate: line, Name: "t"})
					if m, err := mcp.URITemplateMatcher(line); err == nil && m(uri) {
						claims[u.name] = true
					}
				}
			}
			ups = append(ups, u)
		}
		v.syncResources(ups)

		s1, s2 := transport.Pipe(nil)
		v.srv.Connect(s1)
		ctx := context.Background()
		cl, err := client.Connect(ctx, s2, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		_, err = cl.ReadResource(ctx, uri)
		reached := ""
		for _, u := range ups {
			// An upstream without a connection answers that it is starting.
			if err != nil && strings.Contains(err.Error(), fmt.Sprintf("server %q is starting", u.name)) {
				reached = u.name
			}
		}
		switch claimants := slices.Sorted(func(yield func(string) bool) {
			for n := range claims {
				if !yield(n) {
					return
				}
			}
		}); {
		case len(claimants) == 1 && reached != claimants[0]:
			t.Fatalf("%q is claimed by %s alone, but the read reached %q (%v)", uri, claimants[0], reached, err)
		case len(claimants) != 1 && reached != "":
			t.Fatalf("%q is claimed by %v, but the read reached %q", uri, claimants, reached)
		}
	})
}
