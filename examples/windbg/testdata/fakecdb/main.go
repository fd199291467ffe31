// Command fakecdb is the test double of cdb.exe used by the windbg
// example's tests. It is not a debugger: it mimics what the server relies
// on, and nothing more.
//
//   - Targets: exactly one of -z FILE, -p PID or -remote SPEC (other
//     options, such as -y PATH or -lines, are accepted and ignored).
//   - A banner, then the prompt "0:000> " (no newline) before every line it
//     reads from stdin. With FAKECDB_ECHO=1 it echoes each command after
//     the prompt, as a console would.
//   - Commands: ".echo TEXT" prints TEXT; k, lm, r and "!analyze -v" print
//     canned output (the last one long); "hang" prints a line and never
//     finishes; "wait" prints a line and finishes when interrupted
//     (SIGINT, or Ctrl+C on Windows); q, qd and a Ctrl+B line exit, unless
//     FAKECDB_IGNORE_QUIT=1; anything else is a syntax error, as in cdb.
//     End of input exits.
//   - FAKECDB_LOG=FILE appends one line per event: "start ARGS", "recv
//     LINE" (quoted with %q) for every line read, "interrupt", "exit
//     REASON". Tests read it to assert what was, and was not, executed.
package main

import (
	"bufio"
	"fmt"
	"os"
	"os/signal"
	"strings"
)

const prompt = "0:000> "

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	logf := openLog(os.Getenv("FAKECDB_LOG"))
	defer logf.Close()
	logf.event("start %s", strings.Join(args, " "))
	target, err := parseTarget(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakecdb:", err)
		logf.event("exit usage")
		return 2
	}
	interrupts := make(chan os.Signal, 1)
	signal.Notify(interrupts, os.Interrupt)
	go func() {
		// Interrupts outside "wait" are logged and otherwise ignored.
		for range interrupts {
			logf.event("interrupt")
			select {
			case waitDone <- struct{}{}:
			default:
			}
		}
	}()

	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(out, "\nMicrosoft (R) Windows Debugger Version 10.0.99999.1 AMD64 (fake)\n")
	fmt.Fprintf(out, "Copyright (c) Microsoft Corporation. All rights reserved.\n\n%s\n\n", target)
	echo := os.Getenv("FAKECDB_ECHO") == "1"
	ignoreQuit := os.Getenv("FAKECDB_IGNORE_QUIT") == "1"
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	for {
		out.WriteString(prompt)
		out.Flush()
		if !in.Scan() {
			logf.event("exit eof")
			return 0
		}
		line := strings.TrimSuffix(in.Text(), "\r")
		logf.event("recv %q", line)
		if echo {
			fmt.Fprintln(out, line)
		}
		if quit(line) {
			if ignoreQuit {
				continue
			}
			fmt.Fprintln(out, "quit:")
			out.Flush()
			logf.event("exit %s", strings.TrimSpace(line))
			return 0
		}
		execute(out, line)
	}
}

// waitDone is signalled by an interrupt; "wait" blocks on it.
var waitDone = make(chan struct{})

func quit(line string) bool {
	switch strings.TrimSpace(line) {
	case "q", "qq", "qd", "\x02":
		return true
	}
	return false
}

// execute runs one command line, writing its output to out.
func execute(out *bufio.Writer, line string) {
	cmd := strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(cmd, ".echo"):
		fmt.Fprintln(out, strings.TrimSpace(strings.TrimPrefix(cmd, ".echo")))
	case cmd == "k":
		out.WriteString(stack)
	case cmd == "lm":
		out.WriteString(modules)
	case cmd == "r":
		out.WriteString(registers)
	case cmd == "!analyze -v":
		out.WriteString(analyze())
	case cmd == "hang":
		fmt.Fprintln(out, "hanging: this command never finishes")
		out.Flush()
		select {}
	case cmd == "wait":
		fmt.Fprintln(out, "waiting for an interrupt")
		out.Flush()
		<-waitDone
		fmt.Fprintln(out, "interrupted")
	case cmd == "":
		// cdb repeats the last command on an empty line; the fake does nothing.
	default:
		fmt.Fprintf(out, "       ^ Syntax error in '%s'\n", cmd)
	}
}

func parseTarget(args []string) (string, error) {
	var targets []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-z", "-p", "-remote":
			if i+1 == len(args) {
				return "", fmt.Errorf("%s needs a value", args[i])
			}
			targets = append(targets, args[i]+" "+args[i+1])
			i++
		case "-y", "-srcpath", "-i":
			i++ // options with a value, ignored
		}
	}
	if len(targets) != 1 {
		return "", fmt.Errorf("need exactly one of -z, -p, -remote; got %q", targets)
	}
	switch t := targets[0]; {
	case strings.HasPrefix(t, "-z "):
		return "Loading Dump File [" + t[3:] + "]\nUser Mini Dump File: Only registers, stack and portions of memory are available", nil
	case strings.HasPrefix(t, "-p "):
		return "Attaching to process " + t[3:], nil
	default:
		return "Connected to server with '" + t[8:] + "'", nil
	}
}

const stack = ` # Child-SP          RetAddr               Call Site
00 000000a1` + "`" + `2f9ff6b8 00007ffb` + "`" + `4c2b1f3e ntdll!NtWaitForSingleObject+0x14
01 000000a1` + "`" + `2f9ff6c0 00007ff6` + "`" + `1a2b1042 KERNELBASE!WaitForSingleObjectEx+0x8e
02 000000a1` + "`" + `2f9ff760 00007ffb` + "`" + `4d0a7034 app!main+0x42
03 000000a1` + "`" + `2f9ff7a0 00000000` + "`" + `00000000 KERNEL32!BaseThreadInitThunk+0x14
`

const modules = `start             end                 module name
00007ff6` + "`" + `1a2b0000 00007ff6` + "`" + `1a2c5000   app        (deferred)
00007ffb` + "`" + `4c280000 00007ffb` + "`" + `4c4a1000   KERNELBASE (deferred)
00007ffb` + "`" + `4d0a0000 00007ffb` + "`" + `4d15d000   KERNEL32   (deferred)
00007ffb` + "`" + `4ee10000 00007ffb` + "`" + `4f008000   ntdll      (pdb symbols)
`

const registers = `rax=0000000000000000 rbx=000000a12f9ff7a0 rcx=0000000000000084
rdx=0000000000000000 rsi=0000000000000000 rdi=0000000000000084
rip=00007ffb4ee5d3f4 rsp=000000a12f9ff6b8 rbp=0000000000000000
iopl=0         nv up ei pl zr na po nc
cs=0033  ss=002b  ds=002b  es=002b  fs=0053  gs=002b             efl=00000246
ntdll!NtWaitForSingleObject+0x14:
00007ffb` + "`" + `4ee5d3f4 c3              ret
`

// analyze returns "!analyze -v" output of several kilobytes, so that the
// echo's truncation shows.
func analyze() string {
	var b strings.Builder
	b.WriteString("*******************************************************************************\n")
	b.WriteString("*                        Exception Analysis                                   *\n")
	b.WriteString("*******************************************************************************\n\n")
	b.WriteString("KEY_VALUES_STRING: 1\n\nEXCEPTION_CODE_STR:  c0000005\n\nFAULTING_THREAD:  00001f2c\n\n")
	b.WriteString("STACK_TEXT:  \n")
	for i := range 120 {
		fmt.Fprintf(&b, "000000a1`2f9f%04x 00007ff6`1a2b%04x     : 00000000`00000000 00000000`00000000 : app!frame_%03d+0x%x\n", i*8, i*16, i, i)
	}
	b.WriteString("\nSYMBOL_NAME:  app!main+42\n\nFAILURE_BUCKET_ID:  NULL_POINTER_READ_c0000005_app.exe!main\n\nanalyze: end of analysis\n")
	return b.String()
}

// eventLog appends events to a file; a nil log drops them.
type eventLog struct{ f *os.File }

func openLog(path string) *eventLog {
	if path == "" {
		return &eventLog{}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakecdb: log:", err)
		return &eventLog{}
	}
	return &eventLog{f: f}
}

// event writes one line at once (O_APPEND, one write), so it is in the
// file before the fake reads its next command.
func (l *eventLog) event(format string, args ...any) {
	if l.f != nil {
		fmt.Fprintf(l.f, format+"\n", args...)
	}
}

func (l *eventLog) Close() {
	if l.f != nil {
		l.f.Close()
	}
}
