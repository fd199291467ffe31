// Command wprobe is a Windows test program for winexec, cross-compiled by
// the tests and run under wine. Its first argument selects a behaviour.
package main

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: wprobe command ...")
		os.Exit(2)
	}
	args := os.Args[2:]
	switch os.Args[1] {
	case "argv":
		// Go's Windows runtime parses the command line with the MSVCRT
		// 2008 rules.
		b, _ := json.Marshal(args)
		os.Stdout.Write(append(b, '\n'))
	case "exit":
		n, _ := strconv.ParseInt(args[0], 0, 64)
		os.Exit(int(uint32(n)))
	case "split":
		for i := 0; i < 3; i++ {
			fmt.Fprintf(os.Stdout, "out %d\n", i)
			fmt.Fprintf(os.Stderr, "err %d\n", i)
		}
	case "flood":
		n, _ := strconv.ParseInt(args[0], 10, 64)
		w := bufio.NewWriterSize(os.Stdout, 64<<10)
		for i := int64(0); i < n; i++ {
			w.WriteByte(byte('0' + i%10))
		}
		w.Flush()
	case "gbk":
		// "中文输出" in GBK.
		os.Stdout.Write([]byte{0xD6, 0xD0, 0xCE, 0xC4, 0xCA, 0xE4, 0xB3, 0xF6, '\r', '\n'})
	case "stdin":
		io.Copy(os.Stdout, os.Stdin)
	case "env":
		v, ok := os.LookupEnv(args[0])
		fmt.Printf("%v %s\n", ok, v)
	case "cwd":
		wd, _ := os.Getwd()
		fmt.Println(wd)
	case "spawn":
		// spawn HBFILE: start a grandchild that writes heartbeats to
		// HBFILE, confirm it runs, then wait forever.
		exe, _ := os.Executable()
		c := exec.Command(exe, "heartbeat", args[0])
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(5)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			if _, err := os.Stat(args[0]); err == nil {
				break
			}
			if time.Now().After(deadline) {
				fmt.Fprintln(os.Stderr, "grandchild never wrote a heartbeat")
				os.Exit(6)
			}
			time.Sleep(10 * time.Millisecond)
		}
		fmt.Printf("grandchild-up %d\n", c.Process.Pid)
		for {
			time.Sleep(time.Hour) // wait to be killed
		}
	case "spawnflags":
		// spawnflags MODE HBFILE: start the heartbeat grandchild detached,
		// in a new console, in a new process group or breaking away from
		// the job, confirm it runs, then wait forever. A refused breakaway
		// is reported and the program waits all the same.
		flags := map[string]uint32{
			"detached":  0x00000008, // DETACHED_PROCESS
			"console":   0x00000010, // CREATE_NEW_CONSOLE
			"group":     0x00000200, // CREATE_NEW_PROCESS_GROUP
			"breakaway": 0x01000000, // CREATE_BREAKAWAY_FROM_JOB
		}[args[0]]
		exe, _ := os.Executable()
		c := exec.Command(exe, "heartbeat", args[1])
		c.SysProcAttr = &syscall.SysProcAttr{CreationFlags: flags}
		if err := c.Start(); err != nil {
			fmt.Printf("grandchild-refused %v\n", err)
			for {
				time.Sleep(time.Hour) // wait to be killed
			}
		}
		waitFile(args[1])
		fmt.Printf("grandchild-up %d\n", c.Process.Pid)
		for {
			time.Sleep(time.Hour) // wait to be killed
		}
	case "waitfile":
		// waitfile HBFILE: wait until a grandchild started by someone else
		// (cmd /c start) writes its heartbeat, then wait forever.
		waitFile(args[0])
		fmt.Println("grandchild-up")
		for {
			time.Sleep(time.Hour) // wait to be killed
		}
	case "daemon":
		// daemon HBFILE: start a detached heartbeat, confirm it runs,
		// and exit 0 (like hdc starting its server).
		exe, _ := os.Executable()
		c := exec.Command(exe, "heartbeat", args[0])
		c.SysProcAttr = &syscall.SysProcAttr{CreationFlags: 0x00000008}
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(5)
		}
		waitFile(args[0])
		fmt.Printf("daemon-up %d\n", c.Process.Pid)
	case "heartbeat":
		for i := 0; ; i++ {
			os.WriteFile(args[0], []byte(strconv.Itoa(i)), 0o644)
			time.Sleep(20 * time.Millisecond)
		}
	case "hang":
		fmt.Println("hanging")
		for {
			time.Sleep(time.Hour) // wait to be killed
		}
	case "rawexec":
		// rawexec HEXCMDLINE: CreateProcess with exactly this command line
		// and the program named by its first token, inheriting stdio.
		line, err := hex.DecodeString(args[0])
		if err != nil {
			os.Exit(2)
		}
		c := exec.Command(args[1])
		c.SysProcAttr = &syscall.SysProcAttr{CmdLine: string(line)}
		c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
		if err := c.Run(); err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				os.Exit(ee.ExitCode())
			}
			fmt.Fprintln(os.Stderr, err)
			os.Exit(7)
		}
	default:
		fmt.Fprintln(os.Stderr, "unknown command", os.Args[1])
		os.Exit(2)
	}
}

// waitFile polls until path exists (a grandchild's heartbeat); there is no
// other handshake across processes that do not share a pipe.
func waitFile(path string) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			fmt.Fprintln(os.Stderr, "grandchild never wrote a heartbeat")
			os.Exit(6)
		}
		time.Sleep(10 * time.Millisecond) // polling interval
	}
}
