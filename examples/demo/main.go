//go:build unix

// Command demo is the README's main job. It shows the bridge working end to
// end on a machine with nothing but Go:
//
//  1. it builds the winbridge server and launches it as a child process
//     with the client SDK's launcher (client.Launch), over stdio;
//  2. it lists the server's tools;
//  3. it runs a program through win_exec on the local backend, with
//     arguments that break naive quoting;
//  4. it converts a WSL path to its Windows form;
//  5. it runs device commands through hdc_shell: on a real device if an
//     hdc is on PATH, otherwise on a bundled fake device (a test double of
//     hdc and its device daemon, the one the hdc package's tests use).
//
// No network is needed.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/internal/cli"
	"github.com/winbridge/winbridge/internal/fakehdc"
	"github.com/winbridge/winbridge/mcp"
)

func main() {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	version := fs.Bool("version", false, "print the version and exit")
	if err := cli.Parse(fs, os.Args[1:], os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(2)
	}
	if *version {
		fmt.Println(cli.VersionString("demo"))
		return
	}
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demo: FAILED:", err)
		os.Exit(1)
	}
}

func run(w io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "winbridge-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	step(w, "building the winbridge server")
	server, err := build(ctx, dir, "github.com/winbridge/winbridge/examples/winbridge", "winbridge")
	if err != nil {
		return err
	}
	hdcPath, env, stop, err := device(ctx, w, dir)
	if err != nil {
		return err
	}
	defer stop()

	step(w, "launching it over stdio with client.Launch")
	p, err := client.Launch(ctx, &client.Command{
		Path: server,
		Args: []string{"-backend", "local", "-allow-exe", "printf,uname," + hdcPath, "-hdc-exe", hdcPath},
		Env:  env,
	}, &client.ProcessOptions{Client: &client.Options{ProtocolVersion: mcp.Version20251125}})
	if err != nil {
		return fmt.Errorf("launching the server: %w", err)
	}
	defer p.Close()
	c, err := p.Client(ctx)
	if err != nil {
		return err
	}
	info := c.ServerInfo()
	fmt.Fprintf(w, "  connected to %s %s (pid %d), protocol %s\n", info.Name, info.Version, p.Pid(), c.ProtocolVersion())

	tools, err := c.ListTools(ctx)
	if err != nil {
		return err
	}
	var names []string
	for _, t := range tools {
		names = append(names, t.Name)
	}
	fmt.Fprintf(w, "  tools: %s\n", strings.Join(names, ", "))

	step(w, "win_exec: printf with arguments that break naive quoting")
	args := []string{"[%s] [%s] [%s]\n", `say "hi"`, "", `a|b & c; $HOME \ 中文`}
	var ex struct {
		ExitCode int    `json:"exitCode"`
		Stdout   string `json:"stdout"`
	}
	if err := call(ctx, c, "win_exec", map[string]any{"exe": "printf", "args": args}, &ex); err != nil {
		return err
	}
	fmt.Fprintf(w, "  exit %d, stdout: %s", ex.ExitCode, ex.Stdout)
	if want := `[say "hi"] [] [a|b & c; $HOME \ 中文]` + "\n"; ex.Stdout != want {
		return fmt.Errorf("win_exec returned %q, want %q", ex.Stdout, want)
	}

	step(w, "path_wsl_to_win")
	var path struct{ Path string }
	if err := call(ctx, c, "path_wsl_to_win", map[string]string{"path": "/mnt/c/Users/me/Documents/report.txt"}, &path); err != nil {
		return err
	}
	fmt.Fprintf(w, "  /mnt/c/Users/me/Documents/report.txt -> %s\n", path.Path)

	step(w, "hdc_list_targets")
	var targets struct {
		Targets []struct{ Key, ConnectionType, State string } `json:"targets"`
	}
	if err := call(ctx, c, "hdc_list_targets", map[string]any{"verbose": true}, &targets); err != nil {
		return err
	}
	for _, t := range targets.Targets {
		fmt.Fprintf(w, "  %s  %s  %s\n", t.Key, t.ConnectionType, t.State)
	}

	step(w, "hdc_shell: a pipeline that runs on the device, and its exit code")
	var sh struct {
		ExitCode int    `json:"exitCode"`
		Stdout   string `json:"stdout"`
	}
	if err := call(ctx, c, "hdc_shell", map[string]string{"command": `echo "hello from the device: $(echo 中文 | wc -c) bytes" | tr a-z A-Z`}, &sh); err != nil {
		return err
	}
	fmt.Fprintf(w, "  exit %d, stdout: %s", sh.ExitCode, sh.Stdout)
	res, err := c.CallTool(ctx, "hdc_shell", map[string]string{"command": "echo failing on purpose; exit 3"})
	if err != nil {
		return err
	}
	var failed struct {
		ExitCode int `json:"exitCode"`
	}
	remarshal(res.StructuredContent, &failed)
	fmt.Fprintf(w, "  'exit 3' on the device -> exitCode %d, isError %v\n", failed.ExitCode, res.IsError)
	if failed.ExitCode != 3 || !res.IsError {
		return fmt.Errorf("device exit status lost: %+v", res)
	}

	step(w, "closing: stdin closed, the server exits, nothing is left behind")
	if err := p.Close(); err != nil {
		return err
	}
	fmt.Fprintln(w, "demo: OK")
	return nil
}

func step(w io.Writer, s string) { fmt.Fprintf(w, "\n== %s\n", s) }

// call runs a tool and decodes its structured result; a tool error is an
// error here.
func call(ctx context.Context, c *client.Client, tool string, args, out any) error {
	res, err := c.CallTool(ctx, tool, args)
	if err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	if res.IsError {
		return fmt.Errorf("%s failed: %s", tool, res.TextOf())
	}
	remarshal(res.StructuredContent, out)
	return nil
}

func remarshal(in, out any) {
	b, _ := json.Marshal(in)
	_ = json.Unmarshal(b, out)
}

// build compiles a main package of this module.
func build(ctx context.Context, dir, pkg, name string) (string, error) {
	out := filepath.Join(dir, name)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build %s: %w", pkg, err)
	}
	return out, nil
}

// device returns the hdc to use: a real one on PATH, or the bundled fake
// with one fake device, started here.
func device(ctx context.Context, w io.Writer, dir string) (hdcPath string, env []string, stop func(), err error) {
	if p, err := exec.LookPath("hdc"); err == nil {
		step(w, "using the real hdc at "+p)
		return p, nil, func() {}, nil
	}
	step(w, "no hdc on PATH: starting the bundled fake device")
	hdcPath, err = build(ctx, dir, "github.com/winbridge/winbridge/internal/fakehdc/cmd/hdc", "hdc")
	if err != nil {
		return "", nil, nil, err
	}
	state := filepath.Join(dir, "fakehdc")
	d, err := fakehdc.StartDaemon(state)
	if err != nil {
		return "", nil, nil, err
	}
	cfg := fakehdc.Config{Daemon: d.Addr(), Targets: []fakehdc.Target{{Key: "FAKE0123456789", Conn: "USB", State: "Connected", Name: "demo-device"}}}
	if err := fakehdc.WriteState(state, cfg); err != nil {
		d.Close()
		return "", nil, nil, err
	}
	return hdcPath, []string{fakehdc.EnvState + "=" + state}, func() { d.Close() }, nil
}
