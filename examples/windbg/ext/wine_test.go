//go:build unix

package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/peertest"
	"github.com/winbridge/winbridge/internal/wintest"
)

// The DLL in a fake debugger under wine: what .load, !mcp and .unload do
// in WinDbg, with MCP round trips from Go and from the TypeScript SDK in
// between, and the fake engine counting calls from a wrong thread.
func TestWineExtension(t *testing.T) {
	dll := extDLL(t)
	h := startHost(t,
		"WINDBG_MCP_HTTP=127.0.0.1:0", "WINDBG_MCP_TIMEOUT=3s", "WINDBG_MCP_GRACE=30s",
		"WINDBG_MCP_MAX_OUTPUT=65536", "WINDBG_MCP_ECHO_MAX=300")
	_, baseLive, _ := h.stats()
	module, url := h.load(dll)

	// The specification's scenarios, from Go's HTTP client.
	from := len(h.text())
	checkMCP(t, url, "windbg_eval", h.executed)
	// The echo, in the window: request and response summaries, errors
	// included, secrets masked.
	for _, re := range []string{`mcp: .*http="POST /mcp" status=200 .*rpc=initialize`, `rpc=tools/list`, `rpc=no/such/method .*outcome="error -32601"`,
		`rpc=tools/call .*outcome=result`, `rpc=tools/call .*outcome="error -32602"`, `Authorization: \[masked\]`, `api_key.{0,6}:.{0,6}\[masked\]`} {
		h.waitFor(from, re)
	}

	if strings.Contains(h.text(), secret) {
		t.Error("the echo in the window shows the secret")
	}

	c, _ := connect(t, url)
	// Long content is cut in the echo; the response is whole.
	long := "nosuchcommand" + strings.Repeat("A", 3000)
	from = len(h.text())
	res := c.eval("windbg_eval", map[string]any{"command": long})
	if !res.IsError || !strings.Contains(res.Content[0].Text, "Couldn't resolve error at 'nosuchcommand"+strings.Repeat("A", 380)) || !strings.Contains(res.Content[0].Text, "HRESULT 0x80004005") {
		t.Errorf("unknown command: %+v", res)
	}
	h.waitFor(from, `rpc=tools/call .*truncated`)

	// A timeout interrupts the engine (SetInterrupt from another thread);
	// the session goes on.
	start := time.Now()
	res = c.eval("windbg_eval", map[string]any{"command": "hang"})
	if !res.IsError || !strings.Contains(res.Content[0].Text, "hang: interrupted") || !strings.Contains(res.Content[0].Text, "did not finish within 3s") {
		t.Errorf("hang: %+v", res)
	}
	if d := time.Since(start); d > 25*time.Second {
		t.Errorf("hang took %v", d)
	}
	if res = c.eval("windbg_eval", map[string]any{"command": "r"}); res.IsError || !strings.Contains(res.Content[0].Text, "rip=") {
		t.Errorf("r after the timeout: %+v", res)
	}
	// The engine's ANSI output arrives as UTF-8 (the prefix's code page
	// is Windows-1252).
	if res = c.eval("windbg_eval", map[string]any{"command": "ansi"}); res.Content[0].Text != "café €\n" {
		t.Errorf("ansi: %q", res.Content[0].Text)
	}
	// Output is capped per call.
	res = c.eval("windbg_eval", map[string]any{"command": "big 100000"})
	if !strings.Contains(res.Content[0].Text, "34464 more bytes of output were dropped") || strings.Count(res.Content[0].Text, "x") != 65536 {
		t.Errorf("big: %d bytes: %.200s", len(res.Content[0].Text), res.Content[0].Text)
	}

	// The TypeScript SDK client over Streamable HTTP.
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out, err := peertest.RunNode(t, ctx, "ts-client.mjs", "--url", url,
		"--call", `windbg_eval={"command":"k"}`, "--call", `windbg_eval={"command":""}`, "--call", `windbg_eval={"command":"qd"}`)
	if err != nil {
		t.Fatal(err)
	}
	var ts struct {
		Tools []string `json:"tools"`
		Calls []struct {
			Result *callResult `json:"result"`
			Error  *struct {
				Code int `json:"code"`
			} `json:"error"`
		} `json:"calls"`
	}
	if err := json.Unmarshal(out, &ts); err != nil || !slices.Equal(ts.Tools, []string{"windbg_eval"}) || len(ts.Calls) != 3 {
		t.Fatalf("ts-client: %s (%v)", out, err)
	}
	if r := ts.Calls[0].Result; r == nil || r.IsError || !strings.Contains(r.Content[0].Text, "app!main+0x42") {
		t.Errorf("ts-client k: %s", out)
	}
	for i := 1; i < 3; i++ {
		if e := ts.Calls[i].Error; e == nil || e.Code != -32602 {
			t.Errorf("ts-client call %d: want -32602: %s", i, out)
		}
	}
	if slices.Contains(h.executed(), "qd") || slices.Contains(h.executed(), "") {
		t.Errorf("a refused command ran: %q", h.executed())
	}

	// !mcp reports the service through the debugger's own client.
	if out := h.do("mcp"); !strings.Contains(out, "mcp: serving "+url+" (tool windbg_eval)") {
		t.Errorf("!mcp: %q", out)
	}
	// All of that without one engine call from a wrong thread, and with no
	// method the fake lacks.
	if v, _, u := h.stats(); v != 0 || u != 0 {
		t.Errorf("violations=%d unimplemented=%d, want 0 0", v, u)
	}
	// The fake catches a deliberate wrong-thread call.
	if out := h.do("wrongthread"); !strings.Contains(out, "hr=0x8001010e") {
		t.Errorf("wrongthread: %q", out)
	}
	if v, _, _ := h.stats(); v != 1 {
		t.Errorf("violations=%d after a deliberate wrong-thread call, want 1", v)
	}

	// .unload stops the service and releases every engine object.
	if out := h.do("unload"); !strings.Contains(out, "canunload=0x00000000") {
		t.Errorf("unload: %q", out)
	}
	if _, live, _ := h.stats(); live != baseLive {
		t.Errorf("%d engine objects live after unload, want the host's %d", live, baseLive)
	}
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	if conn, err := net.Dial("tcp", addr); err == nil {
		conn.Close()
		t.Errorf("%s still accepts connections after unload", addr)
	}

	// .load again: the same (pinned) module, serving again.
	module2, url2 := h.load(dll)
	if module2 != module {
		t.Errorf("module %s after reload, was %s: the DLL was not pinned", module2, module)
	}
	c2, _ := connect(t, url2)
	if res := c2.eval("windbg_eval", map[string]any{"command": "k"}); res.IsError || !strings.Contains(res.Content[0].Text, "app!main+0x42") {
		t.Errorf("k after reload: %+v", res)
	}
	// !mcp stop and start do the same without unloading.
	if out := h.do("mcp stop"); !strings.Contains(out, "mcp: stopped") {
		t.Errorf("!mcp stop: %q", out)
	}
	if out := h.do("mcp start"); !strings.Contains(out, "mcp: serving http://127.0.0.1:") {
		t.Errorf("!mcp start: %q", out)
	}
	h.do("unload")
	if v, live, u := h.stats(); v != 1 || live != baseLive || u != 0 {
		t.Errorf("at the end: violations=%d live=%d unimplemented=%d; want 1 %d 0", v, live, u, baseLive)
	}
}

// The dotted-names option, and a refusal of a non-loopback address that
// makes the load fail with the reason in the window.
func TestWineExtensionSettings(t *testing.T) {
	dll := extDLL(t)
	h := startHost(t, "WINDBG_MCP_HTTP=127.0.0.1:0", "WINDBG_MCP_DOTTED_NAMES=1")
	_, url := h.load(dll)
	c, _ := connect(t, url)
	if names := c.toolNames(); !slices.Equal(names, []string{"windbg.eval"}) {
		t.Errorf("tools with dotted names: %q", names)
	}
	h.do("unload")

	h2 := startHost(t, "WINDBG_MCP_HTTP=0.0.0.0:0")
	out := h2.do("load " + winPath(dll))
	if !strings.Contains(out, "hr=0x80004005") || !strings.Contains(out, "refusing to serve MCP on an address other hosts can reach") {
		t.Errorf("load on 0.0.0.0: %q", out)
	}
	if v, live, _ := h2.stats(); v != 0 || live != 2 {
		t.Errorf("after a refused load: violations=%d live=%d", v, live)
	}
}

// With WINDBG_MCP_ALLOW_SESSION_END=1, a .unload run through the tool
// makes the engine uninitialize the extension on the worker's own
// thread, inside the call the worker is making. That must not deadlock:
// the service stops in the background, DebugExtensionCanUnload says
// S_FALSE until the worker has released the engine, and the service can
// be started again afterwards.
func TestWineReentrantUnload(t *testing.T) {
	dll := extDLL(t)
	h := startHost(t, "WINDBG_MCP_HTTP=127.0.0.1:0", "WINDBG_MCP_ALLOW_SESSION_END=1", "WINDBG_MCP_GRACE=20s")
	_, baseLive, _ := h.stats()
	_, url := h.load(dll)
	c, _ := connect(t, url)
	body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"windbg_eval","arguments":{"command":".unload windbgext"}}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", c.session)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	client := &http.Client{Timeout: 60 * time.Second}
	start := time.Now()
	// Any answer, or a connection cut by the shutdown, will do; hanging
	// until the client's timeout would be the deadlock.
	if resp, err := client.Do(req); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	} else if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "Timeout") {
		t.Fatalf(".unload through the tool: %v", err)
	}
	if !slices.Contains(h.executed(), ".unload windbgext") {
		t.Fatalf("the engine did not run .unload: %q", h.executed())
	}
	// The worker ends once the command returns: poll the host (an external
	// process leaves no other way) until DebugExtensionCanUnload says S_OK.
	// A worker waiting for itself would give up only after the stop
	// timeout (grace 20s + 10s).
	deadline := start.Add(15 * time.Second)
	for {
		out := h.do("canunload")
		if strings.Contains(out, "canunload: hr=0x00000000 hook=1") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("canunload: %q", out)
		}
		time.Sleep(100 * time.Millisecond) // polling an external process
	}
	if v, live, _ := h.stats(); v != 0 || live != baseLive {
		t.Errorf("after the re-entrant unload: violations=%d live=%d, want 0 %d", v, live, baseLive)
	}
	if out := h.do("mcp start"); !strings.Contains(out, "mcp: serving http://127.0.0.1:") {
		t.Errorf("!mcp start after the re-entrant unload: %q", out)
	}
	h.do("unload")
}

// The load failures of the loading guide, as the fake host (LoadLibrary,
// then the exports by name) meets them under wine: a missing file and a
// missing dependency are error 126, the wrong architecture 193, a DLL
// without the exports is refused before anything runs.
func TestWineLoadFailures(t *testing.T) {
	dll := extDLL(t)
	dir := t.TempDir()
	cc := func(out string, args ...string) {
		t.Helper()
		if b, err := exec.Command(wintest.MingwCC, append([]string{"-shared", "-o", filepath.Join(dir, out)}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", out, err, b)
		}
	}
	src := func(name, code string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(code), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// needsgone.dll imports from gone.dll, which is then deleted.
	cc("gone.dll", src("gone.c", "int gone(void) { return 1; }\n"), "-Wl,--out-implib,"+filepath.Join(dir, "libgone.a"))
	cc("needsgone.dll", src("needsgone.c", "__declspec(dllimport) int gone(void);\n__declspec(dllexport) int f(void) { return gone(); }\n"), "-L"+dir, "-lgone")
	os.Remove(filepath.Join(dir, "gone.dll"))
	// noexports.dll is a valid DLL without the extension's exports.
	cc("noexports.dll", src("noexports.c", "__declspec(dllexport) int f(void) { return 0; }\n"))
	// arm64.dll is the extension with the machine of another architecture.
	b, err := os.ReadFile(dll)
	if err != nil {
		t.Fatal(err)
	}
	peOff := int(b[0x3c]) | int(b[0x3d])<<8 | int(b[0x3e])<<16 | int(b[0x3f])<<24
	b[peOff+4], b[peOff+5] = 0x64, 0xAA // IMAGE_FILE_MACHINE_ARM64
	if err := os.WriteFile(filepath.Join(dir, "arm64.dll"), b, 0o644); err != nil {
		t.Fatal(err)
	}

	h := startHost(t, "WINDBG_MCP_HTTP=127.0.0.1:0")
	for _, c := range []struct{ file, want string }{
		{"nosuch.dll", "LoadLibrary failed, error 126"},
		{"needsgone.dll", "LoadLibrary failed, error 126"},
		{"arm64.dll", "LoadLibrary failed, error 193"},
		{"noexports.dll", "load: missing export"},
	} {
		if out := h.do("load " + winPath(filepath.Join(dir, c.file))); !strings.Contains(out, c.want) {
			t.Errorf("load %s: %q, want %q", c.file, out, c.want)
		}
	}
	if v, live, _ := h.stats(); v != 0 || live != 2 {
		t.Errorf("after failed loads: violations=%d live=%d", v, live)
	}
}
