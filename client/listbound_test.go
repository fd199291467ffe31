package client_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/transport"
)

// endlessLists is a server whose list results never end: every page holds
// about 100 KiB of tools and a next cursor. It answers at most stop pages.
func endlessLists(t *testing.T, conn net.Conn, stop int64, pages *atomic.Int64) {
	t.Helper()
	r := bufio.NewReader(conn)
	desc := strings.Repeat("d", 1000)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &req) != nil || req.ID == nil {
			continue
		}
		var result string
		switch req.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"resources":{},"prompts":{}},"serverInfo":{"name":"endless","version":"1"}}`
		case "tools/list", "resources/list", "prompts/list":
			if pages.Add(1) > stop {
				conn.Close()
				return
			}
			var b strings.Builder
			for i := range 100 {
				if i > 0 {
					b.WriteByte(',')
				}
				n := strconv.Itoa(i)
				b.WriteString(`{"name":"t` + n + `","uri":"x:` + n + `","description":"` + desc + `","inputSchema":{"type":"object"}}`)
			}
			member := strings.TrimSuffix(strings.TrimPrefix(req.Method, ""), "/list")
			result = `{"` + member + `":[` + b.String() + `],"nextCursor":"more"}`
		default:
			result = `{}`
		}
		if _, err := conn.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + result + "}\n")); err != nil {
			return
		}
	}
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
