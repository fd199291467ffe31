package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/winbridge/winbridge/bench/internal/servers"
	"github.com/winbridge/winbridge/bench/internal/servers/gosdksrv"
	"github.com/winbridge/winbridge/bench/internal/servers/wb"
	wbclient "github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/transport"
)

// legacyVersion is the protocol revision every implementation is asked to
// speak, so that the work compared is the same.
const legacyVersion = "2025-11-25"

// binDir holds the server binaries, built once by TestMain.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "winbridge-bench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	for _, name := range []string{"winbridge-server", "gosdk-server", "mcpgo-server", "raw-echo", "raw-json"} {
		// Each server twice: as go build makes it by default (with cgo, a
		// binary that links package net is dynamically linked), and
		// static, without cgo (see BenchmarkSpawnToReadyStatic).
		for _, static := range []bool{false, true} {
			out := filepath.Join(dir, name)
			cmd := exec.Command("go", "build", "-o", out, "./cmd/"+name)
			if static {
				cmd.Args[3] = out + staticSuffix
				cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
			}
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
			if err := cmd.Run(); err != nil {
				fmt.Fprintf(os.Stderr, "building %s: %v\n", name, err)
				os.RemoveAll(dir)
				os.Exit(1)
			}
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// binSuffix picks the variant of the server binaries that sessions start:
// "" for the default build, staticSuffix for the static one.
var binSuffix string

const staticSuffix = "-static"

func binPath(name string) string { return filepath.Join(binDir, name+binSuffix) }

// childStderr is where the servers' standard error goes: nowhere, unless
// BENCH_STDERR is set.
func childStderr() io.Writer {
	if os.Getenv("BENCH_STDERR") != "" {
		return os.Stderr
	}
	return nil
}

// session is one client connected to one server, whatever the library.
type session interface {
	echo(ctx context.Context, text string) (string, error)
	sleep(ctx context.Context, ms int) error
	// ready is the first request that proves the server serves: tools/list
	// for MCP implementations (it returns the number of tools), one echoed
	// line for the raw baselines.
	ready(ctx context.Context) (int, error)
	pid() int
	close() error
}

// impl starts a session: for a child process, spawn it and connect
// (initialize, or discover for winbridge's 2026-07-28 row).
type impl struct {
	name  string
	start func(ctx context.Context) (session, error)
	// mcp is false for the raw baselines.
	mcp bool
	// concurrent is false for raw-echo, which cannot match responses to
	// concurrent requests.
	concurrent bool
}

var stdioImpls = []impl{
	{name: "winbridge", start: startWinbridge(legacyVersion), mcp: true, concurrent: true},
	{name: "winbridge-2026-07-28", start: startWinbridge(""), mcp: true, concurrent: true},
	{name: "winbridge-launch", start: startWinbridgeLaunch, mcp: true, concurrent: true},
	{name: "gosdk", start: startGoSDK, mcp: true, concurrent: true},
	{name: "mcpgo", start: startMCPGo, mcp: true, concurrent: true},
	{name: "raw-echo", start: startRawEcho, concurrent: false},
	{name: "raw-json", start: startRawJSON, concurrent: true},
}

func mustStart(b *testing.B, im impl) session {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := im.start(ctx)
	if err != nil {
		b.Fatalf("%s: start: %v", im.name, err)
	}
	if _, err := s.ready(ctx); err != nil {
		s.close()
		b.Fatalf("%s: ready: %v", im.name, err)
	}
	return s
}

// ---- winbridge ----

// procRWC is a child's stdout and stdin as one io.ReadWriteCloser; Close
// closes stdin, which tells the server to exit.
type procRWC struct {
	io.Reader
	io.WriteCloser
}

type winbridgeSession struct {
	c    *wbclient.Client
	cmd  *exec.Cmd
	done func() error
}

func startWinbridge(version string) func(ctx context.Context) (session, error) {
	return func(ctx context.Context) (session, error) {
		cmd := exec.Command(binPath("winbridge-server"))
		cmd.Stderr = childStderr()
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		stream := transport.NewStream(transport.NewLineFramer(procRWC{stdout, stdin}, 0), nil)
		c, err := wbclient.Connect(ctx, stream, &wbclient.Options{ProtocolVersion: version})
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			return nil, err
		}
		return &winbridgeSession{c: c, cmd: cmd, done: cmd.Wait}, nil
	}
}

// launchSession is winbridge's own launcher, client.Launch: process
// group, stderr drain, exit monitoring, bounded shutdown. It is the row to
// compare with go-sdk's CommandTransport.
type launchSession struct{ p *wbclient.Process }

func startWinbridgeLaunch(ctx context.Context) (session, error) {
	p, err := wbclient.Launch(ctx, &wbclient.Command{Path: binPath("winbridge-server")},
		&wbclient.ProcessOptions{Client: &wbclient.Options{ProtocolVersion: legacyVersion}})
	if err != nil {
		return nil, err
	}
	return &launchSession{p: p}, nil
}

func (s *launchSession) echo(ctx context.Context, text string) (string, error) {
	res, err := s.p.CallTool(ctx, "echo", servers.EchoIn{Text: text})
	if err != nil {
		return "", err
	}
	if res.IsError || len(res.Content) != 1 {
		return "", fmt.Errorf("unexpected result %+v", res)
	}
	return res.TextOf(), nil
}

func (s *launchSession) sleep(ctx context.Context, ms int) error {
	res, err := s.p.CallTool(ctx, "sleep", servers.SleepIn{Ms: ms})
	if err == nil && res.IsError {
		err = errors.New(res.TextOf())
	}
	return err
}

func (s *launchSession) ready(ctx context.Context) (int, error) {
	tools, err := s.p.ListTools(ctx)
	return len(tools), err
}

func (s *launchSession) pid() int     { return s.p.Pid() }
func (s *launchSession) close() error { return s.p.Close() }

func (s *winbridgeSession) echo(ctx context.Context, text string) (string, error) {
	res, err := s.c.CallTool(ctx, "echo", servers.EchoIn{Text: text})
	if err != nil {
		return "", err
	}
	if res.IsError || len(res.Content) != 1 {
		return "", fmt.Errorf("unexpected result %+v", res)
	}
	return res.TextOf(), nil
}

func (s *winbridgeSession) sleep(ctx context.Context, ms int) error {
	res, err := s.c.CallTool(ctx, "sleep", servers.SleepIn{Ms: ms})
	if err == nil && res.IsError {
		err = errors.New(res.TextOf())
	}
	return err
}

func (s *winbridgeSession) ready(ctx context.Context) (int, error) {
	tools, err := s.c.ListTools(ctx)
	return len(tools), err
}

func (s *winbridgeSession) pid() int {
	if s.cmd == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

func (s *winbridgeSession) close() error {
	s.c.Close()
	if s.done != nil {
		return waitOrKill(s.cmd, s.done)
	}
	return nil
}

// waitOrKill waits for a child that was told to exit, killing it after 10 s.
func waitOrKill(cmd *exec.Cmd, wait func() error) error {
	ch := make(chan error, 1)
	go func() { ch <- wait() }()
	select {
	case err := <-ch:
		return err
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-ch
		return errors.New("server did not exit; killed")
	}
}

// ---- official Go SDK ----

type gosdkSession struct {
	cs  *gosdk.ClientSession
	cmd *exec.Cmd
}

var gosdkClient = gosdk.NewClient(&gosdk.Implementation{Name: "bench", Version: "1.0.0"}, nil)

func startGoSDK(ctx context.Context) (session, error) {
	cmd := exec.Command(binPath("gosdk-server"))
	cmd.Stderr = childStderr()
	cs, err := gosdkClient.Connect(ctx, &gosdk.CommandTransport{Command: cmd}, &gosdk.ClientSessionOptions{ProtocolVersion: legacyVersion})
	if err != nil {
		return nil, err
	}
	return &gosdkSession{cs: cs, cmd: cmd}, nil
}

func gosdkText(res *gosdk.CallToolResult) (string, error) {
	if res.IsError || len(res.Content) != 1 {
		return "", fmt.Errorf("unexpected result %+v", res)
	}
	t, ok := res.Content[0].(*gosdk.TextContent)
	if !ok {
		return "", fmt.Errorf("unexpected content %T", res.Content[0])
	}
	return t.Text, nil
}

func (s *gosdkSession) echo(ctx context.Context, text string) (string, error) {
	res, err := s.cs.CallTool(ctx, &gosdk.CallToolParams{Name: "echo", Arguments: servers.EchoIn{Text: text}})
	if err != nil {
		return "", err
	}
	return gosdkText(res)
}

func (s *gosdkSession) sleep(ctx context.Context, ms int) error {
	res, err := s.cs.CallTool(ctx, &gosdk.CallToolParams{Name: "sleep", Arguments: servers.SleepIn{Ms: ms}})
	if err == nil {
		_, err = gosdkText(res)
	}
	return err
}

func (s *gosdkSession) ready(ctx context.Context) (int, error) {
	res, err := s.cs.ListTools(ctx, nil)
	if err != nil {
		return 0, err
	}
	return len(res.Tools), nil
}

func (s *gosdkSession) pid() int {
	if s.cmd == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// close closes stdin and waits for the child to exit (CommandTransport
// does both).
func (s *gosdkSession) close() error { return s.cs.Close() }

// ---- mark3labs/mcp-go ----

type mcpgoSession struct {
	c   *mcpgoclient.Client
	cmd *exec.Cmd
}

func startMCPGo(ctx context.Context) (session, error) {
	var cmd *exec.Cmd
	c, err := mcpgoclient.NewStdioMCPClientWithOptions(binPath("mcpgo-server"), nil, nil,
		mcpgotransport.WithCommandFunc(func(ctx context.Context, command string, env, args []string) (*exec.Cmd, error) {
			cmd = exec.CommandContext(ctx, command, args...)
			cmd.Env = append(os.Environ(), env...)
			if w := childStderr(); w != nil {
				cmd.Stderr = w
			}
			return cmd, nil
		}))
	if err != nil {
		return nil, err
	}
	if err := initializeMCPGo(ctx, c); err != nil {
		return nil, err
	}
	return &mcpgoSession{c: c, cmd: cmd}, nil
}

func mcpgoText(res *mcpgo.CallToolResult) (string, error) {
	if res.IsError || len(res.Content) != 1 {
		return "", fmt.Errorf("unexpected result %+v", res)
	}
	t, ok := res.Content[0].(mcpgo.TextContent)
	if !ok {
		return "", fmt.Errorf("unexpected content %T", res.Content[0])
	}
	return t.Text, nil
}

func (s *mcpgoSession) echo(ctx context.Context, text string) (string, error) {
	var req mcpgo.CallToolRequest
	req.Params.Name = "echo"
	req.Params.Arguments = servers.EchoIn{Text: text}
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		return "", err
	}
	return mcpgoText(res)
}

func (s *mcpgoSession) sleep(ctx context.Context, ms int) error {
	var req mcpgo.CallToolRequest
	req.Params.Name = "sleep"
	req.Params.Arguments = servers.SleepIn{Ms: ms}
	res, err := s.c.CallTool(ctx, req)
	if err == nil {
		_, err = mcpgoText(res)
	}
	return err
}

func (s *mcpgoSession) ready(ctx context.Context) (int, error) {
	res, err := s.c.ListTools(ctx, mcpgo.ListToolsRequest{})
	if err != nil {
		return 0, err
	}
	return len(res.Tools), nil
}

func (s *mcpgoSession) pid() int {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

func (s *mcpgoSession) close() error { return s.c.Close() }

// ---- raw baselines ----

type rawProc struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	r     *bufio.Reader
}

func startRaw(name string) (*rawProc, error) {
	cmd := exec.Command(binPath(name))
	cmd.Stderr = childStderr()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &rawProc{cmd: cmd, stdin: stdin, r: bufio.NewReaderSize(stdout, 64<<10)}, nil
}

func (p *rawProc) pid() int { return p.cmd.Process.Pid }

func (p *rawProc) close() error {
	p.stdin.Close()
	return waitOrKill(p.cmd, p.cmd.Wait)
}

// readLine reads one line, without its newline, into buf.
func readLine(r *bufio.Reader, buf []byte) ([]byte, error) {
	buf = buf[:0]
	for {
		chunk, err := r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return nil, err
		}
		return buf[:len(buf)-1], nil
	}
}

// rawEchoSession writes a tools/call-shaped line (built by appending, no
// JSON encoder; the text must need no escaping) and reads the same line
// back: the cost of the pipes and the two processes, nothing else.
type rawEchoSession struct {
	*rawProc
	id   int
	wbuf []byte
	rbuf []byte
}

func startRawEcho(ctx context.Context) (session, error) {
	p, err := startRaw("raw-echo")
	if err != nil {
		return nil, err
	}
	return &rawEchoSession{rawProc: p}, nil
}

func (s *rawEchoSession) echo(ctx context.Context, text string) (string, error) {
	s.id++
	b := append(s.wbuf[:0], `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, int64(s.id), 10)
	b = append(b, `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`...)
	b = append(b, text...)
	b = append(b, "\"}}}\n"...)
	s.wbuf = b
	var werr error
	if len(b) <= 32<<10 {
		// Fits the pipe buffers: no need to read while writing.
		_, werr = s.stdin.Write(b)
	} else {
		// raw-echo writes back while it reads: read concurrently, or both
		// sides block on full pipes.
		ch := make(chan error, 1)
		go func() { _, err := s.stdin.Write(b); ch <- err }()
		defer func() {
			if err := <-ch; err != nil && werr == nil {
				werr = err
			}
		}()
	}
	if werr != nil {
		return "", werr
	}
	line, err := readLine(s.r, s.rbuf)
	if err != nil {
		return "", err
	}
	s.rbuf = line
	if len(line) != len(b)-1 {
		return "", fmt.Errorf("raw echo: got %d bytes back, sent %d", len(line), len(b)-1)
	}
	return text, nil
}

func (s *rawEchoSession) sleep(ctx context.Context, ms int) error {
	return errors.New("raw-echo has no sleep tool")
}

func (s *rawEchoSession) ready(ctx context.Context) (int, error) {
	_, err := s.echo(ctx, "ready")
	return 0, err
}

// rawJSONSession encodes each request with encoding/json and decodes each
// response with it; a reader goroutine matches responses to callers by id,
// so it can carry concurrent calls like the MCP clients do.
type rawJSONSession struct {
	*rawProc
	wmu     sync.Mutex
	nextID  atomic.Int64
	mu      sync.Mutex
	pending map[int64]chan rawResponse
	readErr error
	done    chan struct{}
}

type rawRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  struct {
		Name      string `json:"name"`
		Arguments any    `json:"arguments"`
	} `json:"params"`
}

type rawResponse struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Result  struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
}

func startRawJSON(ctx context.Context) (session, error) {
	p, err := startRaw("raw-json")
	if err != nil {
		return nil, err
	}
	s := &rawJSONSession{rawProc: p, pending: map[int64]chan rawResponse{}, done: make(chan struct{})}
	go s.readLoop()
	return s, nil
}

func (s *rawJSONSession) readLoop() {
	defer close(s.done)
	for {
		line, err := s.r.ReadBytes('\n')
		if err != nil {
			s.mu.Lock()
			s.readErr = err
			for id, ch := range s.pending {
				close(ch)
				delete(s.pending, id)
			}
			s.mu.Unlock()
			return
		}
		var resp rawResponse
		if err := json.Unmarshal(line, &resp); err != nil {
			continue
		}
		s.mu.Lock()
		ch := s.pending[resp.ID]
		delete(s.pending, resp.ID)
		s.mu.Unlock()
		if ch != nil {
			ch <- resp
		}
	}
}

func (s *rawJSONSession) call(ctx context.Context, tool string, args any) (string, error) {
	req := rawRequest{JSONRPC: "2.0", ID: s.nextID.Add(1), Method: "tools/call"}
	req.Params.Name, req.Params.Arguments = tool, args
	b, err := json.Marshal(&req)
	if err != nil {
		return "", err
	}
	ch := make(chan rawResponse, 1)
	s.mu.Lock()
	if s.readErr != nil {
		s.mu.Unlock()
		return "", s.readErr
	}
	s.pending[req.ID] = ch
	s.mu.Unlock()
	s.wmu.Lock()
	_, err = s.stdin.Write(append(b, '\n'))
	s.wmu.Unlock()
	if err != nil {
		return "", err
	}
	select {
	case resp, ok := <-ch:
		if !ok || len(resp.Result.Content) != 1 {
			return "", errors.New("raw-json: connection closed or bad response")
		}
		return resp.Result.Content[0].Text, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (s *rawJSONSession) echo(ctx context.Context, text string) (string, error) {
	return s.call(ctx, "echo", servers.EchoIn{Text: text})
}

func (s *rawJSONSession) sleep(ctx context.Context, ms int) error {
	_, err := s.call(ctx, "sleep", servers.SleepIn{Ms: ms})
	return err
}

func (s *rawJSONSession) ready(ctx context.Context) (int, error) {
	_, err := s.echo(ctx, "ready")
	return 0, err
}

func (s *rawJSONSession) close() error {
	err := s.rawProc.close()
	<-s.done
	return err
}

// ---- in-memory sessions ----

func startWinbridgePipe(version string) func(ctx context.Context) (session, error) {
	return func(ctx context.Context) (session, error) {
		a, b := transport.Pipe(nil)
		wb.New().Connect(b)
		c, err := wbclient.Connect(ctx, a, &wbclient.Options{ProtocolVersion: version})
		if err != nil {
			return nil, err
		}
		return &winbridgeSession{c: c}, nil
	}
}

func startGoSDKInMemory(ctx context.Context) (session, error) {
	st, ct := gosdk.NewInMemoryTransports()
	if _, err := gosdksrv.New().Connect(ctx, st, nil); err != nil {
		return nil, err
	}
	cs, err := gosdkClient.Connect(ctx, ct, &gosdk.ClientSessionOptions{ProtocolVersion: legacyVersion})
	if err != nil {
		return nil, err
	}
	return &gosdkSession{cs: cs}, nil
}

var inMemoryImpls = []impl{
	{name: "winbridge-pipe", start: startWinbridgePipe(legacyVersion), mcp: true, concurrent: true},
	{name: "winbridge-pipe-2026-07-28", start: startWinbridgePipe(""), mcp: true, concurrent: true},
	{name: "gosdk-inmemory", start: startGoSDKInMemory, mcp: true, concurrent: true},
}

// ---- benchmarks ----

const shortText = "hello, world"

func reportRate(b *testing.B, calls int, d time.Duration) {
	if d > 0 {
		b.ReportMetric(float64(calls)/d.Seconds(), "calls/s")
	}
}

// cpuMeter reads the CPU time (user + system) of this process and of a
// server process, so that a benchmark can say how much of a round trip is
// work and how much is waiting. The kernel counts in clock ticks (10 ms);
// a run of a second or more makes that precise enough.
type cpuMeter struct {
	pid            int
	client, server time.Duration
}

func startCPU(pid int) cpuMeter {
	return cpuMeter{pid: pid, client: procCPU(os.Getpid()), server: procCPU(pid)}
}

// report adds client-cpu-µs/call and server-cpu-µs/call (omitted when the
// server is this process).
func (m cpuMeter) report(b *testing.B, calls int) {
	if calls == 0 {
		return
	}
	c := procCPU(os.Getpid()) - m.client
	b.ReportMetric(float64(c.Microseconds())/float64(calls), "client-cpu-µs/call")
	if m.pid != 0 && m.pid != os.Getpid() {
		s := procCPU(m.pid) - m.server
		b.ReportMetric(float64(s.Microseconds())/float64(calls), "server-cpu-µs/call")
	}
}

// procCPU is the user + system CPU time of a process, from /proc; zero if
// unreadable.
func procCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses and may hold
	// spaces: utime and stime are fields 14 and 15 of the whole line.
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	const tick = 10 * time.Millisecond // USER_HZ is 100 on Linux
	return time.Duration(ut+st) * tick
}

// echoSequentially calls echo with a short text b.N times, one call after
// another, and reports calls/s; measure starts the CPU measurement and
// returns what reports it.
func echoSequentially(b *testing.B, s session, measure func() func(calls int)) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	report := measure()
	for range b.N {
		got, err := s.echo(ctx, shortText)
		if err != nil {
			b.Fatal(err)
		}
		if got != shortText {
			b.Fatalf("echo returned %q", got)
		}
	}
	reportRate(b, b.N, time.Since(start))
	report(b.N)
}

// BenchmarkSequential: one tools/call echo with a short text per op, one
// caller, child process over stdio. Allocations are the client side's
// (the server is another process).
func BenchmarkSequential(b *testing.B) {
	for _, im := range stdioImpls {
		b.Run(im.name, func(b *testing.B) {
			s := mustStart(b, im)
			defer s.close()
			echoSequentially(b, s, func() func(int) {
				cpu := startCPU(s.pid())
				return func(calls int) { cpu.report(b, calls) }
			})
		})
	}
}

// BenchmarkConcurrent64: 64 goroutines (b.SetParallelism) share one
// session and call echo as fast as they can.
func BenchmarkConcurrent64(b *testing.B) {
	for _, im := range stdioImpls {
		if !im.concurrent {
			continue
		}
		b.Run(im.name, func(b *testing.B) {
			s := mustStart(b, im)
			defer s.close()
			ctx := context.Background()
			b.SetParallelism(max(1, 64/runtimeGOMAXPROCS()))
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			cpu := startCPU(s.pid())
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					got, err := s.echo(ctx, shortText)
					if err != nil {
						b.Error(err)
						return
					}
					if got != shortText {
						b.Errorf("echo returned %q", got)
						return
					}
				}
			})
			reportRate(b, b.N, time.Since(start))
			cpu.report(b, b.N)
		})
	}
}

// BenchmarkSleep64x50ms: one op is 64 concurrent calls of sleep {ms: 50}.
// Wall time shows how many tool calls the server runs at once: the
// parallelism metric is 64*50ms / wall time (64 = all at once).
func BenchmarkSleep64x50ms(b *testing.B) {
	const callers, ms = 64, 50
	for _, im := range stdioImpls {
		if !im.concurrent {
			continue
		}
		b.Run(im.name, func(b *testing.B) {
			s := mustStart(b, im)
			defer s.close()
			ctx := context.Background()
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				var wg sync.WaitGroup
				for range callers {
					wg.Go(func() {
						if err := s.sleep(ctx, ms); err != nil {
							b.Error(err)
						}
					})
				}
				wg.Wait()
			}
			wall := time.Since(start) / time.Duration(b.N)
			b.ReportMetric(float64(callers*ms)*float64(time.Millisecond)/float64(wall), "parallelism")
			b.ReportMetric(float64(wall)/float64(time.Millisecond), "ms/batch")
		})
	}
}

// BenchmarkSpawnToReady: start the server process, connect (initialize, or
// discover for 2026-07-28) and get a first successful tools/list; for the
// raw baselines, spawn and get one line echoed. Shutdown is not timed.
func BenchmarkSpawnToReady(b *testing.B) { benchSpawnToReady(b) }

// BenchmarkSpawnToReadyStatic is BenchmarkSpawnToReady with every server
// built with CGO_ENABLED=0. With cgo, a binary that links package net (all
// three libraries do, winbridge through invopop/jsonschema) is dynamically
// linked, and the dynamic loader runs at every start; raw-echo and raw-json
// link no net and are static either way.
func BenchmarkSpawnToReadyStatic(b *testing.B) {
	binSuffix = staticSuffix
	defer func() { binSuffix = "" }()
	benchSpawnToReady(b)
}

func benchSpawnToReady(b *testing.B) {
	for _, im := range stdioImpls {
		b.Run(im.name, func(b *testing.B) {
			ctx := context.Background()
			var total time.Duration
			for range b.N {
				t0 := time.Now()
				s, err := im.start(ctx)
				if err != nil {
					b.Fatal(err)
				}
				n, err := s.ready(ctx)
				if err != nil {
					b.Fatal(err)
				}
				total += time.Since(t0)
				b.StopTimer()
				if im.mcp && n != 2 {
					b.Fatalf("tools/list returned %d tools", n)
				}
				s.close()
				b.StartTimer()
			}
			b.ReportMetric(float64(total)/float64(time.Millisecond)/float64(b.N), "ms/ready")
		})
	}
}

// BenchmarkEcho8MiB: one tools/call echo whose text is 8 MiB (ASCII, no
// escaping), so 8 MiB goes each way.
func BenchmarkEcho8MiB(b *testing.B) {
	benchEcho(b, strings.Repeat("abcdefghijklmnopqrstuvwxyz012345", (8<<20)/32), true)
}

// BenchmarkEcho8MiBMixed is BenchmarkEcho8MiB with text that JSON must
// escape or that is not ASCII: quotes, backslashes, line breaks, tabs, a
// control character, accented letters, CJK and emoji, about one byte in
// three needing work.
func BenchmarkEcho8MiBMixed(b *testing.B) {
	const chunk = "caf\u00e9 \"quoted\"\tline\\path\nnaïve 日本語 🚀\x01 <tag> & ok, plain ascii text.."
	benchEcho(b, strings.Repeat(chunk, (8<<20)/len(chunk)), false)
}

// benchEcho runs one echo of text per op. raw-echo copies the text into
// its line unescaped, so it runs only when the text needs no escaping
// (rawSafe).
func benchEcho(b *testing.B, text string, rawSafe bool) {
	for _, im := range stdioImpls {
		if im.name == "raw-echo" && !rawSafe {
			continue
		}
		b.Run(im.name, func(b *testing.B) {
			s := mustStart(b, im)
			defer s.close()
			ctx := context.Background()
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				got, err := s.echo(ctx, text)
				if err != nil {
					b.Fatal(err)
				}
				if got != text {
					b.Fatalf("echo returned %d bytes, not the %d sent", len(got), len(text))
				}
			}
			b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s/call")
		})
	}
}

// BenchmarkInMemory: sequential echo round trips with client and server in
// this process, over winbridge's transport.Pipe and the Go SDK's
// NewInMemoryTransports (net.Pipe). Allocations cover both sides.
func BenchmarkInMemory(b *testing.B) {
	for _, im := range inMemoryImpls {
		b.Run(im.name, func(b *testing.B) {
			s := mustStart(b, im)
			defer s.close()
			echoSequentially(b, s, func() func(int) { return func(int) {} })
		})
	}
}

// BenchmarkIdleRSS: start a server, initialize, list tools, let it settle
// for 200 ms, and read VmRSS from /proc/<pid>/status. The metric is the
// mean over ops, in MiB; the time per op is meaningless.
func BenchmarkIdleRSS(b *testing.B) {
	for _, im := range stdioImpls {
		b.Run(im.name, func(b *testing.B) {
			var sum float64
			for range b.N {
				s := mustStart(b, im)
				time.Sleep(200 * time.Millisecond)
				kb, err := vmRSS(s.pid())
				s.close()
				if err != nil {
					b.Fatal(err)
				}
				sum += float64(kb) / 1024
			}
			b.ReportMetric(sum/float64(b.N), "MiB-RSS")
		})
	}
}

func vmRSS(pid int) (int, error) {
	if pid == 0 {
		return 0, errors.New("no pid")
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				return strconv.Atoi(f[0])
			}
		}
	}
	return 0, errors.New("no VmRSS")
}

func runtimeGOMAXPROCS() int { return runtime.GOMAXPROCS(0) }

// initializeMCPGo initializes an mcp-go client on protocol 2025-11-25,
// closing it if that fails.
func initializeMCPGo(ctx context.Context, c *mcpgoclient.Client) error {
	var req mcpgo.InitializeRequest
	req.Params.ProtocolVersion = legacyVersion
	req.Params.ClientInfo = mcpgo.Implementation{Name: "bench", Version: "1.0.0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		c.Close()
		return err
	}
	return nil
}
