package mcphttp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

const testToken = "s3cret-token-0123456789"

// RequireBearer admits exactly the token, in any case of the scheme;
// everything else gets 401 with a Bearer challenge and a JSON-RPC error,
// and never reaches the handler.
func TestRequireBearer(t *testing.T) {
	_, url := serveHTTPWrapped(t, httpTestServer(), nil, func(h http.Handler) http.Handler {
		return mcphttp.RequireBearer(testToken, h)
	})
	for _, tc := range []struct {
		name, auth string
		status     int
		challenge  string
	}{
		{"no header", "-", 401, `Bearer realm="mcp"`},
		{"other scheme", "Basic " + testToken, 401, `Bearer realm="mcp"`},
		{"empty token", "Bearer ", 401, `Bearer realm="mcp"`},
		{"wrong token", "Bearer s3cret-token-0123456788", 401, `Bearer realm="mcp", error="invalid_token"`},
		{"prefix of the token", "Bearer s3cret", 401, `Bearer realm="mcp", error="invalid_token"`},
		{"token with more", "Bearer " + testToken + "x", 401, `Bearer realm="mcp", error="invalid_token"`},
		{"the token", "Bearer " + testToken, 200, ""},
		{"scheme in lower case", "bearer " + testToken, 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := rawPost(t, url, initBody, map[string]string{"Authorization": tc.auth})
			defer resp.Body.Close()
			if resp.StatusCode != tc.status || resp.Header.Get("WWW-Authenticate") != tc.challenge {
				t.Fatalf("%s, WWW-Authenticate %q; want %d %q", resp.Status, resp.Header.Get("WWW-Authenticate"), tc.status, tc.challenge)
			}
			if tc.status != 401 {
				return
			}
			var reply rpcReply
			if err := json.NewDecoder(resp.Body).Decode(&reply); err != nil || reply.Error == nil || !strings.Contains(reply.Error.Message, "unauthorized") {
				t.Fatalf("401 body: %+v %v", reply.Error, err)
			}
			if resp.Header.Get(mcphttp.HeaderSessionID) != "" {
				t.Fatal("a refused request opened a session")
			}
		})
	}
	// Our client with the header works end to end.
	f, err := mcphttp.NewFramer(context.Background(), url, &mcphttp.ClientOptions{Logger: quietLog, Header: http.Header{"Authorization": {"Bearer " + testToken}}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Connect(context.Background(), transport.NewStream(f, &transport.StreamOptions{Logger: quietLog}), &client.Options{Logger: quietLog})
	if err != nil {
		t.Fatalf("connect with the token: %v", err)
	}
	c.Close()
	// A refused request's trickling body does not hold the connection.
	conn, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
	br := bufio.NewReader(conn)
	if line, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(line, "HTTP/1.1 401") {
		t.Fatalf("status line %q, %v", line, err)
	}
	if _, err := io.Copy(io.Discard, br); err != nil {
		t.Fatalf("the refused connection stays open: %v", err)
	}
}

func TestRequireBearerEmptyTokenPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("RequireBearer accepted an empty token")
		}
	}()
	mcphttp.RequireBearer("", http.NotFoundHandler())
}
