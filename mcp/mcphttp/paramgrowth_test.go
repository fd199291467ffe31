package mcphttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/winbridge/winbridge/internal/logrec"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

// toolsServer answers initialize (legacy) and each tools/list with
// {"tools":[TOOLS]NEXT} from page(n, cursor), n counting the lists.
func toolsServer(t *testing.T, page func(n int64, cursor string) (tools []string, next string)) *httptest.Server {
	t.Helper()
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
			n := listed.Load()
			if req.Params.Cursor == "" {
				n = listed.Add(1)
			}
			tools, next := page(n, req.Params.Cursor)
			if next != "" {
				next = `,"nextCursor":"` + next + `"`
			}
			result = `{"tools":[` + strings.Join(tools, ",") + `]` + next + `}`
		default:
			result = `{}`
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, result)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// toolsConn is an initialized connection over a framer to url.
func toolsConn(t *testing.T, url string, opts *mcphttp.ClientOptions) (*mcphttp.Framer, *transport.Conn) {
	t.Helper()
	ctx := context.Background()
	f, err := mcphttp.NewFramer(ctx, url, opts)
	if err != nil {
		t.Fatal(err)
	}
	conn := transport.NewConn(transport.NewStream(f, nil), nil, nil)
	t.Cleanup(func() { conn.Close() })
	if err := conn.Call(ctx, "initialize", &mcp.InitializeParams{ProtocolVersion: mcp.LatestLegacyVersion}, nil); err != nil {
		t.Fatal(err)
	}
	return f, conn
}

// A server whose every tools/list names tools never named before, each
// with a parameter header, made the framer remember the headers of every
// tool it ever listed, for the connection's life: memory without bound
// for a client that lists again on each list_changed. A listing from its
// first page replaces what the last one taught, once its last page is in.
func TestParamHeadersForgetToolsNoLongerListed(t *testing.T) {
	const perList, lists = 100, 20
	srv := toolsServer(t, func(n int64, cursor string) ([]string, string) {
		// Two pages a list, every tool a new name.
		tools := make([]string, perList/2)
		for i := range tools {
			tools[i] = fmt.Sprintf(`{"name":"t%d-%s-%d","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}`, n, cursor, i)
		}
		if cursor == "" {
			return tools, "2"
		}
		return tools, ""
	})
	f, conn := toolsConn(t, srv.URL, &mcphttp.ClientOptions{NoListen: true})
	ctx := context.Background()
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

// A tools/list of thousands of tools with invalid annotations is one
// warning, with the count, not one per tool: a list of tiny such tools
// wrote more bytes of log than the server sent.
func TestInvalidParamHeadersWarnOncePerList(t *testing.T) {
	const bad = 2000
	srv := toolsServer(t, func(int64, string) ([]string, string) {
		tools := make([]string, bad, bad+1)
		for i := range tools {
			tools[i] = fmt.Sprintf(`{"name":"b%d","inputSchema":{"type":"object","properties":{"p":{"type":"string","x-mcp-header":""}}}}`, i)
		}
		return append(tools, `{"name":"ok","inputSchema":{"type":"object"}}`), ""
	})
	warned := &logrec.Counter{Min: slog.LevelWarn}
	_, conn := toolsConn(t, srv.URL, &mcphttp.ClientOptions{NoListen: true, Logger: slog.New(warned)})
	var res mcp.ListToolsResult
	if err := conn.Call(context.Background(), "tools/list", &mcp.PaginatedParams{}, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 1 || res.Tools[0].Name != "ok" {
		t.Fatalf("%d tools, want only ok", len(res.Tools))
	}
	if n := warned.Count(); n != 1 {
		t.Errorf("%d warnings for a list of %d invalid tools, want 1", n, bad)
	}
}

// A server whose lists never end (a nextCursor on every page) makes the
// client give each up at its bound (client.Options.MaxListBytes) and list
// again: what the framer learnt of the pages of lists given up must not
// add up either.
func TestParamHeadersOfEndlessListsDoNotAddUp(t *testing.T) {
	const perPage, pages, lists = 50, 4, 20
	srv := toolsServer(t, func(n int64, cursor string) ([]string, string) {
		tools := make([]string, perPage)
		for i := range tools {
			tools[i] = fmt.Sprintf(`{"name":"t%d-%s-%d","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}`, n, cursor, i)
		}
		return tools, cursor + "x"
	})
	f, conn := toolsConn(t, srv.URL, &mcphttp.ClientOptions{NoListen: true})
	ctx := context.Background()
	for range lists {
		cursor := ""
		for range pages { // then given up
			var res mcp.ListToolsResult
			if err := conn.Call(ctx, "tools/list", &mcp.PaginatedParams{Cursor: cursor}, &res); err != nil {
				t.Fatal(err)
			}
			cursor = res.NextCursor
		}
	}
	// The list under way and the last one complete (none here) at most.
	if n := f.ParamTools(); n > 2*perPage*pages {
		t.Errorf("the framer keeps the headers of %d tools after %d lists given up after %d pages of %d", n, lists, pages, perPage)
	}
}
