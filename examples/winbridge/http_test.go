package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// -http on an address other hosts can reach is refused (exit 2, with the
// way out) unless -http-allow-remote is given, and then only with a token.
func TestHTTPRefusesRemoteAddress(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"-http", ":0"}, "", "not a loopback address"},
		{[]string{"-http", "0.0.0.0:0"}, "", "-http-allow-remote"},
		{[]string{"-http", "0.0.0.0:0", "-http-allow-remote"}, "", "needs a bearer token"},
		{[]string{"-http", "127.0.0.1:0"}, "short", "at least 16"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Setenv("WINBRIDGE_HTTP_TOKEN", tc.env)
			var out, errOut bytes.Buffer
			code := run(append(tc.args, "-backend", "local"), &out, &errOut)
			if code != 2 || !strings.Contains(errOut.String(), tc.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, errOut.String(), tc.want)
			}
		})
	}
}

// With a token (from a file, so that ps does not show it) every request
// needs Authorization: Bearer; the log never shows the token.
func TestHTTPToken(t *testing.T) {
	bin := build(t)
	const token = "file-token-0123456789"
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-http", "127.0.0.1:0", "-http-token-file", tokenFile, "-echo", "-backend", "local", "-allow-exe", "printf")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stderr := readLog(pipe)
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		for range stderr.lines {
		}
		cmd.Wait()
		if strings.Contains(stderr.String(), token) {
			t.Errorf("stderr shows the token:\n%s", stderr.String())
		}
	}()
	url := stderr.waitURL(t)
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Fatalf("without the token: %s, WWW-Authenticate %q", resp.Status, resp.Header.Get("WWW-Authenticate"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream, err := mcphttp.NewStream(ctx, url, &mcphttp.ClientOptions{Header: http.Header{"Authorization": {"Bearer " + token}}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Connect(ctx, stream, nil)
	if err != nil {
		t.Fatalf("connect with the token: %v", err)
	}
	defer c.Close()
	if res, err := c.CallTool(ctx, "win_exec", map[string]any{"exe": "printf", "args": []string{"ok"}}); err != nil || res.IsError {
		t.Fatalf("win_exec with the token: %v %+v", err, res)
	}
}

// childLog reads a child's stderr line by line, keeping every line.
type childLog struct {
	lines chan string
	mu    sync.Mutex
	all   strings.Builder
}

func readLog(r io.Reader) *childLog {
	l := &childLog{lines: make(chan string, 256)}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			l.mu.Lock()
			l.all.WriteString(sc.Text() + "\n")
			l.mu.Unlock()
			select {
			case l.lines <- sc.Text():
			default: // nobody waits for lines any more
			}
		}
		close(l.lines)
	}()
	return l
}

func (l *childLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.all.String()
}

// waitURL waits for the line that announces the server's URL.
func (l *childLog) waitURL(t *testing.T) string {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line, ok := <-l.lines:
			if !ok {
				t.Fatalf("the server exited before listening:\n%s", l.String())
			}
			if _, u, found := strings.Cut(line, "url="); found {
				return strings.Fields(u)[0]
			}
		case <-timeout:
			t.Fatalf("the server did not report its URL:\n%s", l.String())
		}
	}
}
