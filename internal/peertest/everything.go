package peertest

import (
	"bufio"
	"context"
	"os/exec"
	"regexp"
	"testing"
	"time"
)

// everythingURL is how examples/everything-server announces its endpoint
// on stderr.
var everythingURL = regexp.MustCompile(`url=(http://\S+/mcp)`)

// EverythingHTTP runs examples/everything-server -http on a free loopback
// port for the rest of the test and returns its MCP endpoint.
func EverythingHTTP(t testing.TB) string {
	t.Helper()
	bin := BuildGo(t, "./examples/everything-server")
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "-http", "127.0.0.1:0")
	cmd.WaitDelay = 5 * time.Second
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := everythingURL.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case u := <-found:
		return u
	case <-time.After(30 * time.Second):
		t.Fatal("everything-server did not say where it serves")
	}
	return ""
}
