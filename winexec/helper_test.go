package winexec

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"
)

// helperMain is the native test program: the same commands as
// testdata/wprobe, for backends that run Linux programs (Local, and the
// fake PowerShell, which runs its targets natively).
func helperMain(args []string) int {
	if len(args) == 0 {
		return 2
	}
	rest := args[1:]
	switch args[0] {
	case "argv":
		b, _ := json.Marshal(rest)
		os.Stdout.Write(append(b, '\n'))
	case "exit":
		n, _ := strconv.Atoi(rest[0])
		return n
	case "split":
		for i := 0; i < 3; i++ {
			fmt.Fprintf(os.Stdout, "out %d\n", i)
			fmt.Fprintf(os.Stderr, "err %d\n", i)
		}
	case "flood":
		n, _ := strconv.ParseInt(rest[0], 10, 64)
		w := bufio.NewWriterSize(os.Stdout, 64<<10)
		for i := int64(0); i < n; i++ {
			w.WriteByte(byte('0' + i%10))
		}
		w.Flush()
	case "stdin":
		io.Copy(os.Stdout, os.Stdin)
	case "env":
		v, ok := os.LookupEnv(rest[0])
		fmt.Printf("%v %s\n", ok, v)
	case "cwd":
		wd, _ := os.Getwd()
		fmt.Println(wd)
	case "spawn":
		exe, _ := os.Executable()
		c := exec.Command(exe, "heartbeat", rest[0])
		c.Env = append(os.Environ(), helperEnv+"=1")
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 5
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			if _, err := os.Stat(rest[0]); err == nil {
				break
			}
			if time.Now().After(deadline) {
				return 6
			}
			time.Sleep(10 * time.Millisecond) // the helper polls the file system; no handshake is possible
		}
		fmt.Printf("grandchild-up %d\n", c.Process.Pid)
		for {
			time.Sleep(time.Hour) // wait to be killed
		}
	case "localtree":
		// localtree HBFILE SCRIPT: run cmd.exe /C SCRIPT with Local and no
		// timeout, print "tree-up" once HBFILE exists, and wait to be
		// killed: what becomes of the tree when the server dies.
		req := Request{Exe: "cmd.exe", Args: []string{"/C", rest[1]}, Env: map[string]string{helperEnv: "1"}}
		if err := applyCmdRule(&req); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 5
		}
		go (&Local{}).Run(context.Background(), &req)
		deadline := time.Now().Add(30 * time.Second)
		for {
			if _, err := os.Stat(rest[0]); err == nil {
				break
			}
			if time.Now().After(deadline) {
				return 6
			}
			time.Sleep(10 * time.Millisecond) // polling; no handshake is possible
		}
		fmt.Println("tree-up")
		for {
			time.Sleep(time.Hour) // wait to be killed
		}
	case "waitfile":
		// waitfile HBFILE: wait until a grandchild started by someone else
		// (cmd /c start) writes its heartbeat, then wait to be killed.
		deadline := time.Now().Add(30 * time.Second)
		for {
			if _, err := os.Stat(rest[0]); err == nil {
				break
			}
			if time.Now().After(deadline) {
				return 6
			}
			time.Sleep(10 * time.Millisecond) // polling; no handshake is possible
		}
		fmt.Println("grandchild-up")
		for {
			time.Sleep(time.Hour) // wait to be killed
		}
	case "heartbeat":
		for i := 0; ; i++ {
			os.WriteFile(rest[0], []byte(strconv.Itoa(i)), 0o644)
			time.Sleep(20 * time.Millisecond)
		}
	case "fifo":
		// fifo PATH: open the named pipe PATH for reading, which returns
		// once the test opens it for writing (the handshake that the
		// program runs), and read until the test closes it (the release).
		f, err := os.Open(rest[0])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 5
		}
		io.Copy(io.Discard, f)
		f.Close()
		fmt.Println("released")
	case "hang":
		fmt.Println("hanging")
		for {
			time.Sleep(time.Hour) // wait to be killed
		}
	default:
		fmt.Fprintln(os.Stderr, "unknown helper command", args[0])
		return 2
	}
	return 0
}
