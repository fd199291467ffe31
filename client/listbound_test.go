package client_test

import (
	"context"
	"errors"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/transport"
)

// endlessLists is a server whose list results never end: every page holds
// about 100 KiB of tools and a next cursor. It answers at most stop pages.
func endlessLists(t *testing.T, conn net.Conn, stop int64, pages *atomic.Int64) {
	t.Helper()
	desc := strings.Repeat("d", 1000)
	lineServer(conn, func(method string) string {
		switch method {
		case "initialize":
			return initResult("endless")
		case "tools/list", "resources/list", "prompts/list":
			if pages.Add(1) > stop {
				return ""
			}
			var b strings.Builder
			for i := range 100 {
				if i > 0 {
					b.WriteByte(',')
				}
				n := strconv.Itoa(i)
				b.WriteString(`{"name":"t` + n + `","uri":"x:` + n + `","description":"` + desc + `","inputSchema":{"type":"object"}}`)
			}
			return `{"` + strings.TrimSuffix(method, "/list") + `":[` + b.String() + `],"nextCursor":"more"}`
		}
		return `{}`
	})
}

// A server whose lists never end cannot make the client gather them
// without bound: the pages of one list may hold MaxListBytes in all (here
// 1 MiB, about ten pages), then the list fails. Before, the client read
// 10000 pages, which at the 32 MiB message size is 320 GB.
func TestEndlessListIsBoundedInBytes(t *testing.T) {
	for _, method := range []string{"tools", "resources", "prompts"} {
		t.Run(method, func(t *testing.T) {
			a, b := net.Pipe()
			var pages atomic.Int64
			go endlessLists(t, b, 200, &pages)
			c, err := client.Connect(context.Background(), transport.NewStream(transport.NewLineFramer(a, 0), nil),
				&client.Options{ProtocolVersion: "2025-11-25", MaxListBytes: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			switch method {
			case "tools":
				_, err = c.ListTools(context.Background())
			case "resources":
				_, err = c.ListResources(context.Background())
			case "prompts":
				_, err = c.ListPrompts(context.Background())
			}
			if err == nil || !errors.Is(err, client.ErrListTooLarge) || !strings.Contains(err.Error(), "MaxListBytes") {
				t.Errorf("endless %s list: %v, want ErrListTooLarge naming MaxListBytes", method, err)
			}
			if n := pages.Load(); n > 20 {
				t.Errorf("read %d pages of 100 KiB with a bound of 1 MiB", n)
			}
		})
	}
}

// emptyItems is a server whose lists are one page of n empty items ("{}"),
// three bytes each.
func emptyItems(conn net.Conn, n int) {
	page := strings.Repeat(`{},`, n-1) + `{}`
	lineServer(conn, func(method string) string {
		switch method {
		case "initialize":
			return initResult("empty")
		case "tools/list", "resources/list", "prompts/list":
			return `{"` + strings.TrimSuffix(method, "/list") + `":[` + page + `]}`
		}
		return `{}`
	})
}

// MaxListBytes bounds what a list costs the client, not only what it
// received: each item counts the memory it is decoded into. An empty item
// is three bytes on the wire and a struct of some 150 bytes decoded, so a
// list counted by its bytes alone took fifty times MaxListBytes (3 GB at
// the 64 MiB default, twice that once the Manager copied it).
func TestListItemsCountTheirDecodedSize(t *testing.T) {
	const items = 1 << 18 // 768 KiB on the wire, ~40 MiB decoded
	for _, method := range []string{"tools", "resources", "prompts"} {
		t.Run(method, func(t *testing.T) {
			a, b := net.Pipe()
			go emptyItems(b, items)
			c, err := client.Connect(context.Background(), transport.NewStream(transport.NewLineFramer(a, 0), nil),
				&client.Options{ProtocolVersion: "2025-11-25", MaxListBytes: 4 << 20})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			var n int
			switch method {
			case "tools":
				var l []*mcp.Tool
				l, err = c.ListTools(context.Background())
				n = len(l)
			case "resources":
				var l []*mcp.Resource
				l, err = c.ListResources(context.Background())
				n = len(l)
			case "prompts":
				var l []*mcp.Prompt
				l, err = c.ListPrompts(context.Background())
				n = len(l)
			}
			runtime.ReadMemStats(&m1)
			if !errors.Is(err, client.ErrListTooLarge) {
				t.Fatalf("%d empty %s (%d decoded) under MaxListBytes of 4 MiB: %v, want ErrListTooLarge", items, method, n, err)
			}
			// Refused before decoding: what the client allocated is about
			// the page's bytes (read, checked, kept), not its items.
			if d := m1.TotalAlloc - m0.TotalAlloc; d > 16<<20 {
				t.Errorf("allocated %d MiB for a refused page of %d KiB", d>>20, 3*items>>10)
			}
		})
	}
}
