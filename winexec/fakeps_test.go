//go:build unix

package winexec

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// fakePowerShell is a test double for powershell.exe running Bootstrap. It
// checks that it was started exactly with PowerShellArgv and that the
// encoded command is Bootstrap, then speaks the bootstrap's protocol,
// running targets as native Linux programs. It mirrors what the real script
// does: the MSVCRT parse of our command line (.NET passes it to
// CreateProcess verbatim), concurrent raw reads of both streams in 64 KiB
// chunks, tree kill on timeout, cancel or stdin EOF (a process-group kill
// standing in for taskkill /T /F), 32-bit exit codes. It cannot mirror
// PowerShell's own parsing or .NET behaviour; the real script is checked by
// the PowerShell parser test and the acceptance checklist in
// docs/WINDOWS.md.
//
// Modes: normal, pwsh (reads strings as PowerShell 7's ConvertFrom-Json
// does: a string that is a date becomes one, see pwshLine), noise (non-protocol lines around frames), crash (dies in
// the middle of a request), hang (never answers a request), garbage (writes
// an endless line that is not the protocol).
//
// A target named fake-exit-N is not started; the reply carries exit code
// N, so 32-bit codes can be tested on Linux.
func fakePowerShell(mode string) int {
	args := os.Args[1:]
	if want := PowerShellArgs(); !slices.Equal(args, want) {
		fmt.Fprintf(os.Stderr, "fake powershell: unexpected argv %q\n", args)
		return 64
	}
	if script, err := DecodePowerShell(args[5]); err != nil || script != Bootstrap {
		fmt.Fprintln(os.Stderr, "fake powershell: -EncodedCommand is not the Bootstrap", err)
		return 65
	}
	// Our targets must not inherit the variable that made us the fake.
	os.Unsetenv(fakePSEnv)
	f := &fakeHost{mode: mode, out: os.Stdout}
	lines := make(chan string)
	go func() {
		defer close(lines)
		r := bufio.NewReaderSize(os.Stdin, 1<<20)
		for {
			l, err := r.ReadString('\n')
			if l = strings.TrimRight(l, "\r\n"); l != "" || err == nil {
				lines <- l
			}
			if err != nil {
				return
			}
		}
	}()
	if mode == "noise" {
		f.raw("WARNING: this is not the protocol\n")
	}
	f.send(map[string]any{"t": "ready", "v": 2, "cp": 437})
	for l := range lines {
		if l == "" || l == "cancel" {
			continue
		}
		if eof := f.handle(l, lines); eof {
			return 0
		}
	}
	return 0
}

type fakeHost struct {
	mode string
	mu   sync.Mutex
	out  io.Writer
}

func (f *fakeHost) raw(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	io.WriteString(f.out, s)
}

func (f *fakeHost) send(v map[string]any) {
	b, _ := json.Marshal(v)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.mode == "noise" {
		io.WriteString(f.out, "noise between frames\n")
	}
	f.out.Write(append(b, '\n'))
}

// handle runs one request; it reports whether stdin ended meanwhile.
func (f *fakeHost) handle(line string, lines <-chan string) (eof bool) {
	if f.mode == "pwsh" {
		line = pwshLine(line)
	}
	var req wireRequest
	if err := json.Unmarshal([]byte(line), &req); err != nil {
		f.send(map[string]any{"t": "x", "id": 0, "err": []byte(err.Error())})
		return false
	}
	switch f.mode {
	case "crash":
		f.send(map[string]any{"t": "o", "id": req.ID, "d": []byte("partial")})
		os.Exit(3)
	case "hang":
		for range lines {
		}
		return true
	case "garbage":
		junk := strings.Repeat("\x00\xffnot the protocol ", 1<<16) // > maxFrameLine
		f.raw(junk)
		return false
	}
	if code, ok := strings.CutPrefix(string(req.Exe), "fake-exit-"); ok {
		n, _ := strconv.ParseInt(code, 0, 64)
		f.send(map[string]any{"t": "x", "id": req.ID, "code": int32(uint32(n)), "timedOut": false, "cancelled": false, "ms": 0})
		return false
	}
	argv := SplitCommandLine(`"` + string(req.Exe) + `" ` + string(req.CmdLine))
	// Windows would find the program by its UNC path; we need it back in
	// Linux form.
	if p, err := fakeDistroPaths.WinToWSL(argv[0]); err == nil {
		argv[0] = p
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if len(req.Cwd) > 0 {
		dir, err := fakeDistroPaths.WinToWSL(string(req.Cwd))
		if err != nil {
			f.send(map[string]any{"t": "x", "id": req.ID, "err": []byte(err.Error())})
			return false
		}
		cmd.Dir = dir
	}
	cmd.Env = os.Environ()
	for _, kv := range req.Env {
		cmd.Env = append(cmd.Env, string(kv))
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, _ := cmd.StdinPipe()
	so, _ := cmd.StdoutPipe()
	se, _ := cmd.StderrPipe()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		f.send(map[string]any{"t": "x", "id": req.ID, "err": []byte(err.Error())})
		return false
	}
	go func() {
		stdin.Write(req.Stdin)
		stdin.Close()
	}()
	var readers sync.WaitGroup
	pump := func(kind string, r io.Reader) {
		defer readers.Done()
		buf := make([]byte, 64<<10)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				// Formatted by hand exactly as the bootstrap's
				// Send-Chunk does.
				f.raw(`{"t":"` + kind + `","id":` + strconv.FormatInt(req.ID, 10) + `,"d":"` + base64.StdEncoding.EncodeToString(buf[:n]) + "\"}\n")
			}
			if err != nil {
				return
			}
		}
	}
	readers.Add(2)
	go pump("o", so)
	go pump("e", se)
	streams := make(chan struct{})
	go func() {
		readers.Wait()
		close(streams)
	}()

	killTree := func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var timeout <-chan time.Time
	if req.TimeoutMs > 0 {
		t := time.NewTimer(time.Duration(req.TimeoutMs) * time.Millisecond)
		defer t.Stop()
		timeout = t.C
	}
	timedOut, cancelled := false, false
	for waiting := true; waiting; {
		select {
		case <-streams:
			waiting = false
		case <-timeout:
			timedOut = true
			killTree()
			timeout = nil
		case l, ok := <-lines:
			cancelled = true
			killTree()
			if !ok {
				eof = true
			}
			lines = nil
			_ = l
		}
	}
	_ = cmd.Wait()
	code := cmd.ProcessState.ExitCode()
	if code < 0 {
		code = 1 // what taskkill /F leaves as the exit code
	}
	f.send(map[string]any{"t": "x", "id": req.ID, "code": code, "timedOut": timedOut, "cancelled": cancelled, "ms": time.Since(start).Milliseconds()})
	return eof
}

// fakeDistroPaths maps paths as Windows would for the double: the backends
// under test name this distribution in the \\wsl.localhost paths they send
// (fakePSBackend), and only its own paths map back to the Linux root.
var fakeDistroPaths = &PathMapper{Distro: fakeDistro}

// fakeDistro is the WSL distribution the PowerShell tests pretend to run in.
const fakeDistro = "TestDistro"
