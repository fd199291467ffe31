package redisstore

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/peertest"
	"github.com/winbridge/winbridge/mcp/mcphttp/redisstore/internal/redistest"
	"github.com/winbridge/winbridge/mcp/mcphttp/replicatest"
)

// The rig: a redis-server of the test's own, three everything-server
// processes built with -redis (scripts/build-redis, as an operator
// builds them), and a round-robin reverse proxy in front, as a load
// balancer without affinity.

var (
	rigOnce sync.Once
	rigBin  string
	rigErr  error
	rigOut  []byte
)

// rigServer builds everything-server with -redis once per test binary.
func rigServer(t *testing.T) string {
	t.Helper()
	peertest.LookPath(t, "redis-server")
	root := peertest.RepoRoot(t)
	rigOnce.Do(func() {
		dir, err := os.MkdirTemp("", "rig-")
		if err != nil {
			rigErr = err
			return
		}
		cmd := exec.Command(filepath.Join(root, "scripts/build-redis"), dir)
		cmd.Dir = root
		rigOut, rigErr = cmd.CombinedOutput()
		rigBin = filepath.Join(dir, "everything-server")
	})
	if rigErr != nil {
		t.Fatalf("scripts/build-redis: %v\n%s", rigErr, rigOut)
	}
	return rigBin
}

type replica struct {
	cmd  *exec.Cmd
	url  string
	dead atomic.Bool
	done chan struct{}
}

// startReplica starts everything-server -http on a loopback port of its
// choosing with -redis, and reads the URL it reports.
func startReplica(t *testing.T, bin, redisURL string) *replica {
	t.Helper()
	cmd := exec.Command(bin, "-http", "127.0.0.1:0")
	// The URL through the environment, as DEPLOY.md advises.
	cmd.Env = append(os.Environ(), "EVERYTHING_SERVER_REDIS_URL="+redisURL)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &replica{cmd: cmd, done: make(chan struct{})}
	urls := make(chan string, 1)
	go func() {
		defer close(r.done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, u, ok := strings.Cut(sc.Text(), "url="); ok {
				select {
				case urls <- strings.Fields(u)[0]:
				default:
				}
			}
		}
		_ = cmd.Wait()
	}()
	t.Cleanup(r.kill)
	select {
	case r.url = <-urls:
	case <-r.done:
		t.Fatal("everything-server exited before it listened")
	case <-time.After(30 * time.Second):
		t.Fatal("everything-server did not report where it listens")
	}
	return r
}

func (r *replica) kill() {
	if r.dead.Swap(true) {
		return
	}
	_ = r.cmd.Process.Kill()
	<-r.done
}

// roundRobin is a reverse proxy that sends each request to the next live
// replica: no affinity, as the harshest load balancer.
func roundRobin(t *testing.T, rs []*replica) string {
	t.Helper()
	targets := make([]*url.URL, len(rs))
	for i, r := range rs {
		u, err := url.Parse(r.url)
		if err != nil {
			t.Fatal(err)
		}
		targets[i] = u
	}
	ts := httptest.NewServer(newRoundRobin(targets, func(i int) bool { return rs[i].dead.Load() }))
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

// proxyBodyLimit bounds the request bodies the rig's proxy buffers.
const proxyBodyLimit = 8 << 20

// newRoundRobin proxies each request to the next target that is not dead.
//
// It reads each request body whole before forwarding it, as nginx does by
// default (proxy_request_buffering). Streamed through, the body is still
// owned by the proxy's own server: when a replica answers as soon as the
// body arrives (a stateless call's SSE stream starts with its first
// progress notification), the proxy writes the response header while
// http.Transport is still reading the body for its end, net/http's server
// closes the body on that header, the Transport's read fails with "invalid
// Read on closed Body", and the Transport drops the replica's connection
// mid-response: the stream ends before its result, and the proxy logs
// "use of closed network connection".
func newRoundRobin(targets []*url.URL, dead func(int) bool) http.Handler {
	var next atomic.Uint64
	proxies := make([]*httputil.ReverseProxy, len(targets))
	for i, u := range targets {
		u := *u
		u.Path = "" // the proxy's own path, /mcp, is kept
		p := httputil.NewSingleHostReverseProxy(&u)
		p.FlushInterval = -1 // SSE: every event at once
		proxies[i] = p
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Body != nil && req.Body != http.NoBody {
			body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, proxyBodyLimit))
			if err != nil {
				http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
				return
			}
			req.Body = io.NopCloser(bytes.NewReader(body))
			req.ContentLength = int64(len(body))
			req.TransferEncoding = nil
		}
		for range proxies {
			i := int(next.Add(1) % uint64(len(proxies)))
			if !dead(i) {
				proxies[i].ServeHTTP(w, req)
				return
			}
		}
		http.Error(w, "no replica", http.StatusBadGateway)
	})
}

func startRig(t *testing.T) (*redistest.Server, []*replica, string) {
	t.Helper()
	bin := rigServer(t)
	r := redistest.Start(t)
	var rs []*replica
	for range 3 {
		rs = append(rs, startReplica(t, bin, r.URL()))
	}
	return r, rs, roundRobin(t, rs)
}

func urlsOf(rs []*replica) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.url)
	}
	return out
}

// everythingAsk is everything-server's multi round-trip prompt.
var everythingAsk = replicatest.Asker{
	Prompt: "test_input_required_result_prompt", Key: "user_context",
	Answer: `{"action":"accept","content":{"context":"Ada"}}`, Want: "Prompt with context: Ada",
}

func TestRig(t *testing.T) {
	r, rs, proxy := startRig(t)
	urls := urlsOf(rs)
	t.Run("session across replicas", func(t *testing.T) {
		replicatest.LegacySession(t, urls)
	})
	t.Run("session through the proxy", func(t *testing.T) {
		replicatest.LegacySession(t, []string{proxy, proxy, proxy, proxy})
	})
	t.Run("requestState across replicas", func(t *testing.T) {
		replicatest.RequestStateAcross(t, urls, everythingAsk)
	})
	t.Run("answer through another replica", func(t *testing.T) {
		replicatest.AnswerElsewhere(t, urls, replicatest.Elicitor{Name: "test_elicitation", Args: `{"message":"Who?"}`,
			Answer: `{"action":"accept","content":{"username":"ada","email":"ada@example.com"}}`, Want: "ada@example.com"})
	})
	t.Run("listen hears the bus", func(t *testing.T) {
		// everything-server announces test://watched-resource every 3 s
		// on every replica; with a bus, a replica's own listeners hear
		// only what comes back through Redis, so an update here crossed it.
		replicatest.ListenAcross(t, urls, "test://watched-resource", func() {})
	})
	t.Run("subscribe through another replica", func(t *testing.T) {
		replicatest.SubscribeElsewhere(t, urls, "test://watched-resource", func() {})
	})
	t.Run("redis restarted", func(t *testing.T) {
		sid := replicatest.Initialize(t, proxy)
		r.Stop()
		resp := replicatest.Post(t, proxy, sid, "2025-11-25", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, nil)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("with Redis down: status %d, want 503", resp.StatusCode)
		}
		r.Restart()
		deadline := time.Now().Add(30 * time.Second)
		for {
			resp := replicatest.Post(t, proxy, sid, "2025-11-25", `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`, nil)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
			if resp.StatusCode != http.StatusServiceUnavailable || time.Now().After(deadline) {
				t.Fatalf("after the restart: status %d", resp.StatusCode)
			}
		}
		for range 3 { // every replica, round robin
			replicatest.Result(t, replicatest.Post(t, proxy, sid, "2025-11-25", `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`, nil))
		}
	})
	t.Run("resume after the replica is killed", func(t *testing.T) {
		tool := replicatest.ProgressTool{Name: "test_tool_with_progress", Args: `{}`, Events: 4}
		replicatest.ResumeElsewhere(t, urls[:2], tool, rs[0].kill)
	})
}

// The official conformance suite's server scenarios, both revisions,
// through the round-robin proxy: three replicas pass as one server.
func TestRigConformance(t *testing.T) {
	conf := peertest.Conformance(t)
	_, _, proxy := startRig(t)
	for _, rev := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(rev, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			argv := append(conf, "server", "--url", proxy, "--requirements", rev)
			out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
			tail := string(out)
			if i := strings.Index(tail, "=== SUMMARY ==="); i >= 0 {
				tail = tail[i:]
			}
			if err != nil {
				t.Fatalf("conformance %s through the proxy: %v\n%s", rev, err, tail)
			}
			if !strings.Contains(tail, "Total:") {
				t.Fatalf("no summary from the suite:\n%s", tail)
			}
			t.Logf("%s", tail)
		})
	}
}

// Correctness under load: 64 callers share one legacy session through the
// proxy for RIG_LOAD_SECONDS (30 by default), each calling echo with a
// text of its own; every call must be answered, once, with its own text.
// Throughput is logged, not judged: three replicas, Redis, the proxy and
// the callers share the machine.
func TestRigLoad(t *testing.T) {
	secs := 30
	if s := os.Getenv("RIG_LOAD_SECONDS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			secs = n
		}
	}
	_, _, proxy := startRig(t)
	sid := replicatest.Initialize(t, proxy)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 128
	hc := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	defer hc.CloseIdleConnections()
	deadline := time.Now().Add(time.Duration(secs) * time.Second)
	var calls atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for c := range 64 {
		wg.Go(func() {
			for n := 0; time.Now().Before(deadline); n++ {
				id := c*1_000_000 + n
				text := fmt.Sprintf("caller %d call %d", c, n)
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}`, id, text)
				req, _ := http.NewRequest(http.MethodPost, proxy, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Session-Id", sid)
				req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
				resp, err := hc.Do(req)
				if err != nil {
					errs <- fmt.Errorf("call %d: %w", id, err)
					return
				}
				got, err := answers(resp)
				if err != nil {
					errs <- fmt.Errorf("call %d: %w", id, err)
					return
				}
				if len(got) != 1 {
					errs <- fmt.Errorf("call %d answered %d times: %v", id, len(got), got)
					return
				}
				want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}]}}`, id, text)
				if got[0] != want {
					errs <- fmt.Errorf("call %d answered\n%s\nwant\n%s", id, got[0], want)
					return
				}
				calls.Add(1)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("three replicas with Redis behind the proxy, 64 callers, %d s: %d calls, %.0f calls/s",
		secs, calls.Load(), float64(calls.Load())/float64(secs))
}

// answers reads the JSON-RPC responses of a POST answered as JSON or SSE.
func answers(resp *http.Response) ([]string, error) {
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, err := io.ReadAll(resp.Body)
		return []string{strings.TrimSpace(string(b))}, err
	}
	var out []string
	evs := replicatest.NewEvents(resp.Body)
	for {
		ev, err := evs.Next()
		if err != nil {
			return out, nil
		}
		if strings.Contains(ev.Data, `"result"`) || strings.Contains(ev.Data, `"error"`) {
			out = append(out, ev.Data)
		}
	}
}
