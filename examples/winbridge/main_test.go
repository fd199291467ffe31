package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

func build(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "winbridge")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func TestServesToolsOverStdio(t *testing.T) {
	bin := build(t)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "WINBRIDGE_BACKEND=local", "ALLOW_EXE=sh,printf", "DEFAULT_TIMEOUT_MS=5000")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, transport.NewStream(transport.NewLineFramer(struct {
		io.Reader
		io.WriteCloser
	}{out, in}, 0), nil), nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr: %s", err, stderr.String())
	}
	tools, err := c.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	for _, want := range []string{"win_exec", "path_wsl_to_win", "path_win_to_wsl", "hdc_shell", "hdc_run", "hdc_list_targets"} {
		if !strings.Contains(strings.Join(names, ","), want) {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	res, err := c.CallTool(ctx, "win_exec", map[string]any{"exe": "printf", "args": []string{"%s", `say "hi" 中文`}})
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Stdout string }
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &got)
	if res.IsError || got.Stdout != `say "hi" 中文` {
		t.Fatalf("win_exec: %s isError=%v", b, res.IsError)
	}
	c.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("server exit: %v\n%s", err, stderr.String())
	}
}

func TestCheckVersionAndBadSettings(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"-version"}, &out, &errOut); code != 0 || !strings.HasPrefix(out.String(), "winbridge ") {
		t.Fatalf("-version: %d %q", code, out.String())
	}
	out.Reset()
	code := run([]string{"-check", "-backend", "local", "-hdc-exe", "sh"}, &out, &errOut)
	for _, want := range []string{"platform:", "backend:    local", "powershell:", "hdc:", "code page:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("-check output lacks %q:\n%s", want, out.String())
		}
	}
	if code != 0 || !strings.Contains(out.String(), "ok: no problem found") {
		t.Errorf("-check with everything present: %d\n%s", code, out.String())
	}
	out.Reset()
	code = run([]string{"-check", "-backend", "local", "-hdc-exe", "no-such-hdc"}, &out, &errOut)
	if code != 1 || !strings.Contains(out.String(), "problem:") || !strings.Contains(out.String(), "HDC_EXE") {
		t.Errorf("-check with hdc missing: %d\n%s", code, out.String())
	}
	errOut.Reset()
	t.Setenv("WINBRIDGE_BACKEND", "bogus")
	if code := run(nil, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "WINBRIDGE_BACKEND") {
		t.Errorf("bad backend: %d %q", code, errOut.String())
	}
}

func TestServesHTTPWithEcho(t *testing.T) {
	bin := build(t)
	cmd := exec.Command(bin, "-http", "127.0.0.1:0", "-echo", "-backend", "local", "-allow-exe", "printf")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	lines := make(chan string, 256)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var url string
	for url == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("server exited before listening")
			}
			if _, u, found := strings.Cut(l, "url="); found {
				url = strings.Fields(u)[0]
			}
		case <-time.After(30 * time.Second):
			t.Fatal("server did not report its URL")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream, err := mcphttp.NewStream(ctx, url, &mcphttp.ClientOptions{Header: http.Header{"Authorization": {"Bearer very-secret-token"}}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.Connect(ctx, stream, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(ctx, "win_exec", map[string]any{"exe": "printf", "args": []string{"over http"}})
	if err != nil || res.IsError {
		t.Fatalf("win_exec over HTTP: %v %+v", err, res)
	}
	// The echo shows the call, and never the secret.
	deadline := time.After(10 * time.Second)
	for sawCall := false; !sawCall; {
		select {
		case l := <-lines:
			if strings.Contains(l, "very-secret-token") {
				t.Fatalf("the echo leaked a secret: %s", l)
			}
			sawCall = strings.Contains(l, "tools/call")
		case <-deadline:
			t.Fatal("no echo line for tools/call")
		}
	}
}
