package mcphttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

// A server whose every tools/list names tools never named before, each
// with a parameter header, made the framer remember the headers of every
// tool it ever listed, for the connection's life: memory without bound
// for a client that lists again on each list_changed. A listing from its
// first page replaces what the last one taught, once its last page is in.
func TestParamHeadersForgetToolsNoLongerListed(t *testing.T) {
	const perList, lists = 100, 20
	var listed atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Cursor string `json:"cursor"`
			} `json:"params"`
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil || req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var result string
		switch req.Method {
		case "initialize":
			result = `{"protocolVersion":"` + mcp.LatestLegacyVersion + `","capabilities":{"tools":{}},"serverInfo":{"name":"h","version":"1"}}`
		case "tools/list":
			// Two pages a list, every tool a new name.
			n := listed.Add(1)
			tools := make([]string, perList/2)
			for i := range tools {
				tools[i] = fmt.Sprintf(`{"name":"t%d-%d","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}`, n, i)
			}
			next := ""
			if req.Params.Cursor == "" {
				next = `,"nextCursor":"2"`
			}
			result = `{"tools":[` + strings.Join(tools, ",") + `]` + next + `}`
		default:
			result = `{}`
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
	}))
	defer srv.Close()
	ctx := context.Background()
	f, err := mcphttp.NewFramer(ctx, srv.URL, &mcphttp.ClientOptions{NoListen: true})
	if err != nil {
		t.Fatal(err)
	}
	conn := transport.NewConn(transport.NewStream(f, nil), nil, nil)
	defer conn.Close()
	if err := conn.Call(ctx, "initialize", &mcp.InitializeParams{ProtocolVersion: mcp.LatestLegacyVersion}, nil); err != nil {
		t.Fatal(err)
	}
	for range lists {
		cursor := ""
		for {
			var res mcp.ListToolsResult
			if err := conn.Call(ctx, "tools/list", &mcp.PaginatedParams{Cursor: cursor}, &res); err != nil {
				t.Fatal(err)
			}
			if len(res.Tools) != perList/2 {
				t.Fatalf("%d tools in a page, want %d", len(res.Tools), perList/2)
			}
			if cursor = res.NextCursor; cursor == "" {
				break
			}
		}
	}
	if n := f.ParamTools(); n > 2*perList {
		t.Errorf("the framer keeps the headers of %d tools after %d lists of %d", n, lists, perList)
	}
}
