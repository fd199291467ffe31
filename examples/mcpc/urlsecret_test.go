package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A remote server that cannot be reached, hangs up or never answers:
// mcpc's stderr (its error, and its debug log with -v) names the server
// and never the key in its URL. Before, net/http's error quoted the URL.
func TestRemoteFailureKeyNotShown(t *testing.T) {
	const key = "Zq81xYt0PqLm3NvR"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()

	hangUp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hangUp.Close()
	go func() {
		for {
			c, err := hangUp.Accept()
			if err != nil {
				return
			}
			http.ReadRequest(bufio.NewReader(c))
			c.Close()
		}
	}()

	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // so that the server notices mcpc leave
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hang.Close()
	defer close(release) // before Close, which waits for the handlers

	for _, tc := range []struct {
		name, host string
		args       []string
	}{
		{"closed port", closed, nil},
		{"hang-up", hangUp.Addr().String(), nil},
		{"timeout", strings.TrimPrefix(hang.URL, "http://"), []string{"--timeout", "300ms"}},
	} {
		for where, u := range map[string]string{
			"query":    "http://" + tc.host + "/mcp?api_key=" + key,
			"path":     "http://" + tc.host + "/mcp/" + key + "/sse",
			"userinfo": "http://" + key + ":" + key + "@" + tc.host + "/mcp",
		} {
			args := append(append([]string{"--url", u, "-v"}, tc.args...), "tools")
			code, out, stderr := mcpc(t, args...)
			if code == exitOK || out != "" {
				t.Errorf("%s/%s: status %d, stdout %q", tc.name, where, code, out)
			}
			if strings.Contains(stderr, key) {
				t.Errorf("%s/%s: stderr shows the key: %s", tc.name, where, stderr)
			}
			// A URL with userinfo is refused before anything is sent;
			// --timeout ends the connection, and its error names no URL.
			if where != "userinfo" && tc.name != "timeout" && !strings.Contains(stderr, tc.host) {
				t.Errorf("%s/%s: stderr should name the server %s: %s", tc.name, where, tc.host, stderr)
			}
		}
	}
}
