package fakehdc

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// EnvState names the environment variable holding the state directory.
const EnvState = "FAKEHDC_STATE"

// Version is what -v and version print.
const Version = "Ver: 3.1.0e"

// Target is one device the fake knows.
type Target struct {
	Key string `json:"key"`
	// Conn is USB, TCP, UART or BT.
	Conn string `json:"conn"`
	// State is Connected, Offline or Unauthorized.
	State string `json:"state"`
	Name  string `json:"name"`
	// Busybox gives the device a busybox (a script that logs its use to
	// busybox.log in the device directory and runs the host's tool).
	Busybox bool `json:"busybox,omitempty"`
}

// Config is the content of <state>/fakehdc.json.
type Config struct {
	// Daemon is the host:port of the device daemon.
	Daemon  string   `json:"daemon"`
	Targets []Target `json:"targets"`
}

const configName = "fakehdc.json"

// HilogLines are the canned lines of every device's log; hilog prints
// them with the device's key in the first one.
var HilogLines = []string{
	"01-01 08:00:00.000  1001  1001 I C01510/BinderInvoker: boot of device %s",
	"01-01 08:00:00.100  1001  1002 I A00000/testTag: hello from the fake device",
	"01-01 08:00:00.200  1001  1003 W C02D00/HiSysEvent: low battery warning",
	"01-01 08:00:00.300  1001  1004 E A00000/testTag: error: something failed",
	"01-01 08:00:00.400  1001  1005 I A00000/testTag: 中文日志",
}

const hilogScript = `#!/bin/sh
# fake hilog: prints the canned log; without -x it then follows forever.
cat "$(dirname "$0")/../hilog.txt"
for a in "$@"; do
	if [ "$a" = -x ]; then exit 0; fi
done
exec sleep 100000
`

const busyboxScript = `#!/bin/sh
# fake busybox: logs the applet and runs the host's tool of that name.
echo "$*" >> "$(dirname "$0")/../busybox.log"
if [ "$1" = true ]; then exit 0; fi
exec "$@"
`

// DeviceDir is the scratch directory of the device key (Linux form).
func DeviceDir(state, key string) string { return filepath.Join(state, "devices", key) }

// WriteState writes cfg into the state directory and creates each
// target's device directory with data/local/tmp, tmp, bin/hilog and, when
// asked for, bin/busybox.
func WriteState(state string, cfg Config) error {
	for _, t := range cfg.Targets {
		root := DeviceDir(state, t.Key)
		for _, d := range []string{"bin", "tmp", "data/local/tmp"} {
			if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
				return err
			}
		}
		var log strings.Builder
		for i, l := range HilogLines {
			if i == 0 {
				l = fmt.Sprintf(l, t.Key)
			}
			log.WriteString(l + "\n")
		}
		files := map[string]string{"hilog.txt": log.String(), "bin/hilog": hilogScript}
		if t.Busybox {
			files["bin/busybox"] = busyboxScript
		}
		for name, content := range files {
			if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o755); err != nil {
				return err
			}
		}
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(state, configName), b, 0o644)
}

// twoWord and oneWord are the commands hdc registers (IsRegisterCommand).
var (
	twoWord = []string{"list targets", "file send", "file recv", "target mount", "target boot"}
	oneWord = []string{
		"version", "help", "discover", "checkserver", "checkdevice", "any", "tconn", "shell", "fport", "rport",
		"kill", "start", "keygen", "install", "uninstall", "hilog", "smode", "bugreport", "tmode", "sideload",
		"jpid", "track-jpid", "update", "flash", "erase", "format",
	}
)

// isCommand follows IsRegisterCommand: a two-word command from two
// elements, or any command from one (also "target boot" as one element).
func isCommand(args []string) (string, int) {
	if len(args) >= 2 && slices.Contains(twoWord, args[0]+" "+args[1]) {
		return args[0] + " " + args[1], 2
	}
	if len(args) >= 1 && (slices.Contains(oneWord, args[0]) || slices.Contains(twoWord, args[0]) || strings.HasPrefix(args[0], "wait")) {
		return args[0], 1
	}
	return "", 0
}

type client struct {
	out, errw io.Writer
	state     string
	cfg       Config
	key       string
}

func (c *client) say(format string, a ...any) { fmt.Fprintf(c.out, format+"\n", a...) }

// Main runs the fake hdc client with args (without the program name) and
// returns its exit code, which is always 0, as hdc's.
func Main(args []string, stdout, stderr io.Writer) int {
	c := &client{out: stdout, errw: stderr}
	args = ansiArgs(args)
	// SplitOptionAndCommand: options until the first command; the rest is
	// joined with spaces, arguments holding a space wrapped in quotes.
	var opts []string
	command := ""
	for i := 0; i < len(args); i++ {
		if command == "" {
			if v, n := isCommand(args[i:]); n > 0 {
				command = v
				i += n - 1
				continue
			}
			opts = append(opts, args[i])
			continue
		}
		a := args[i]
		if strings.Contains(a, " ") {
			a = `"` + a + `"`
		}
		command += " " + a
	}
	for i := 0; i < len(opts); i++ {
		o := opts[i]
		if len(o) < 2 || o[0] != '-' {
			continue
		}
		switch o[1] {
		case 'v':
			c.say("%s", Version)
			return 0
		case 'h':
			fmt.Fprint(stderr, usage)
			return 0
		case 't', 's', 'l', 'e', 'd':
			v := o[2:]
			if v == "" && i+1 < len(opts) {
				i++
				v = opts[i]
			}
			if o[1] == 't' {
				c.key = v
			}
		}
	}
	if command == "" {
		c.say("Unknown operation command...")
		fmt.Fprint(stderr, usage)
		return 0
	}
	c.state = hostPath(os.Getenv(EnvState))
	if b, err := os.ReadFile(filepath.Join(c.state, configName)); err == nil {
		if err := json.Unmarshal(b, &c.cfg); err != nil {
			c.say("[Fail]fake hdc: bad %s: %v", configName, err)
			return 0
		}
	}
	c.run(command)
	return 0
}

const usage = `
                         OpenHarmony device connector(HDC) ... (fake)

---------------------------------global commands:----------------------------------
 -h/help                               - Print hdc help
 -v/version                            - Print hdc version
 -t connectkey                         - Use device with given connect key
---------------------------------component commands:-------------------------------
 list targets [-v]                     - List all devices status, -v for detail
 shell [COMMAND...]                    - Run shell command on the device
 file send LOCAL REMOTE                - Send file to device
 file recv REMOTE LOCAL                - Recv file from device
 install [-r] PATH                     - Install an application
 uninstall [-k] BUNDLE                 - Uninstall an application
 hilog                                 - Show the device log
`

func has(cmd, prefix string) (string, bool) {
	if cmd == prefix {
		return "", true
	}
	if rest, ok := strings.CutPrefix(cmd, prefix+" "); ok {
		return rest, true
	}
	return "", false
}

func (c *client) run(command string) {
	if _, ok := has(command, "version"); ok {
		c.say("%s", Version)
		return
	}
	if _, ok := has(command, "help"); ok {
		fmt.Fprint(c.errw, usage)
		return
	}
	if rest, ok := has(command, "list targets"); ok {
		c.listTargets(strings.Contains(" "+rest, " -v"))
		return
	}
	if _, ok := has(command, "checkserver"); ok {
		c.say("Client version:%s, server version:%s", Version, Version)
		return
	}
	if _, ok := has(command, "kill"); ok {
		c.say("Kill server finish")
		return
	}
	if _, ok := has(command, "start"); ok {
		return
	}
	if rest, ok := has(command, "fport"); ok {
		switch {
		case rest == "ls":
			c.say("[Empty]")
			return
		case strings.HasPrefix(rest, "rm "):
			c.say("Remove forward ruler success, ruler:%s", strings.TrimPrefix(rest, "rm "))
			return
		}
	}
	t, ok := c.target()
	if !ok {
		return
	}
	root := hostPath(DeviceDir(os.Getenv(EnvState), t.Key))
	if rest, ok := has(command, "shell"); ok {
		if rest == "" {
			c.say("[Fail]fake hdc: the interactive shell is not emulated")
			return
		}
		c.device(t, shellCmdTrim(rest))
		return
	}
	if _, ok := has(command, "hilog"); ok {
		c.device(t, "hilog")
		return
	}
	if rest, ok := has(command, "file send"); ok {
		c.fileSend(root, splitParams(rest))
		return
	}
	if rest, ok := has(command, "file recv"); ok {
		c.fileRecv(root, splitParams(rest))
		return
	}
	if rest, ok := has(command, "install"); ok {
		c.install(root, splitParams(rest))
		return
	}
	if rest, ok := has(command, "uninstall"); ok {
		c.uninstall(root, splitParams(rest))
		return
	}
	if _, ok := has(command, "fport"); ok {
		c.say("Forwardport result:OK")
		return
	}
	if _, ok := has(command, "tmode"); ok {
		c.say("Set device run mode successful.")
		return
	}
	if _, ok := has(command, "target mount"); ok {
		c.say("Mount finish")
		return
	}
	for _, quiet := range []string{"target boot", "smode"} {
		if _, ok := has(command, quiet); ok {
			return
		}
	}
	c.say("[Fail]fake hdc: command %q is not emulated", command)
}

func (c *client) listTargets(verbose bool) {
	ts := slices.Clone(c.cfg.Targets)
	sort.Slice(ts, func(i, j int) bool { return ts[i].Key < ts[j].Key })
	var b strings.Builder
	for _, t := range ts {
		if verbose {
			fmt.Fprintf(&b, "%s\t\t%s\t%s\t%s\n", t.Key, t.Conn, t.State, t.Name)
		} else if t.State == "Connected" {
			fmt.Fprintf(&b, "%s\n", t.Key)
		}
	}
	if b.Len() == 0 {
		c.say("[Empty]")
		return
	}
	fmt.Fprint(c.out, b.String())
}

// target picks the device: the one named by -t, else the only connected
// one.
func (c *client) target() (Target, bool) {
	if c.key != "" {
		for _, t := range c.cfg.Targets {
			if t.Key == c.key && t.State == "Connected" {
				return t, true
			}
		}
		c.say("[Fail][E001005] Device not found or connected")
		return Target{}, false
	}
	var conn []Target
	for _, t := range c.cfg.Targets {
		if t.State == "Connected" {
			conn = append(conn, t)
		}
	}
	switch len(conn) {
	case 1:
		return conn[0], true
	case 0:
		c.say("[Fail][E001005] Device not found or connected")
	default:
		c.say("[Fail]ExecuteCommand need connect-key? please confirm a device by help info")
	}
	return Target{}, false
}

// shellCmdTrim is hdc's Base::ShellCmdTrim: trim white space, then one
// pair of surrounding double quotes.
func shellCmdTrim(s string) string {
	s = strings.Trim(s, " \t\n\r\f\v")
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	return s
}

// Request is what the client sends the daemon: one JSON line.
type Request struct {
	Key string `json:"key"`
	Cmd string `json:"cmd"`
}

// device runs cmd on the device through the daemon and copies its output
// to stdout until the daemon closes the connection.
func (c *client) device(t Target, cmd string) {
	conn, err := net.DialTimeout("tcp", c.cfg.Daemon, 10*time.Second)
	if err != nil {
		c.say("[Fail][E001005] Device not found or connected (fake daemon %q: %v)", c.cfg.Daemon, err)
		return
	}
	defer conn.Close()
	b, _ := json.Marshal(Request{Key: t.Key, Cmd: cmd})
	if _, err := conn.Write(append(b, '\n')); err != nil {
		c.say("[Fail]fake hdc: %v", err)
		return
	}
	_, _ = io.Copy(c.out, bufio.NewReader(conn))
}

// splitParams splits hdc's joined parameters on spaces, honouring the
// double quotes hdc put around arguments with spaces.
func splitParams(s string) []string {
	var out []string
	var cur strings.Builder
	in, seen := false, false
	for _, r := range s {
		switch {
		case r == '"':
			in, seen = !in, true
		case r == ' ' && !in:
			if seen {
				out = append(out, cur.String())
			}
			cur.Reset()
			seen = false
		default:
			cur.WriteRune(r)
			seen = true
		}
	}
	if seen {
		out = append(out, cur.String())
	}
	return out
}

// positional drops options (-x, and -b/-cwd with their value).
func positional(params []string) []string {
	var out []string
	for i := 0; i < len(params); i++ {
		p := params[i]
		if strings.HasPrefix(p, "-") {
			if p == "-b" || p == "-cwd" {
				i++
			}
			continue
		}
		out = append(out, p)
	}
	return out
}

func devicePath(root, remote string) string {
	return filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(remote, "/")))
}

func (c *client) fileSend(root string, params []string) {
	p := positional(params)
	if len(p) != 2 {
		c.say("[Fail]There is no local and remote path")
		return
	}
	local, remote := p[0], p[1]
	abs, _ := filepath.Abs(local)
	data, err := os.ReadFile(abs)
	if err != nil {
		c.say("[Fail][E005101] Error opening file: no such file or directory, path:%s", local)
		return
	}
	dst := devicePath(root, remote)
	if st, err := os.Stat(dst); (err == nil && st.IsDir()) || strings.HasSuffix(remote, "/") {
		dst = filepath.Join(dst, filepath.Base(abs))
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		c.say("[Fail][E005005] Error create file: no such file or directory, path:%s", remote)
		return
	}
	c.say("FileTransfer finish, Size:%d, File count = 1, time:1ms rate:%d.00kB/s", len(data), len(data)/1024)
}

func (c *client) fileRecv(root string, params []string) {
	p := positional(params)
	if len(p) != 2 {
		c.say("[Fail]There is no local and remote path")
		return
	}
	remote, local := p[0], p[1]
	data, err := os.ReadFile(devicePath(root, remote))
	if err != nil {
		c.say("[Fail][E005005] Error opening file: no such file or directory, path:%s", remote)
		return
	}
	dst, _ := filepath.Abs(local)
	if st, err := os.Stat(dst); err == nil && st.IsDir() {
		dst = filepath.Join(dst, filepath.Base(filepath.FromSlash(remote)))
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		c.say("[Fail][E005101] Error opening file: no such file or directory, path:%s", local)
		return
	}
	c.say("FileTransfer finish, Size:%d, File count = 1, time:1ms rate:%d.00kB/s", len(data), len(data)/1024)
}

const installedName = "installed.txt"

func (c *client) install(root string, params []string) {
	p := positional(params)
	if len(p) == 0 {
		c.say("[Fail]Not any installation package was found")
		return
	}
	for _, pkg := range p {
		abs, _ := filepath.Abs(pkg)
		if _, err := os.Stat(abs); err != nil {
			c.say("[Fail][E005101] Error opening file: no such file or directory, path:%s", pkg)
			return
		}
		bundle := strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
		f, err := os.OpenFile(filepath.Join(root, installedName), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintln(f, bundle)
			f.Close()
		}
		c.say("[Info]App install path:%s msg:install bundle successfully.", abs)
	}
	c.say("AppMod finish")
}

func (c *client) uninstall(root string, params []string) {
	p := positional(params)
	if len(p) != 1 {
		c.say("[Fail]Param count error")
		return
	}
	b, _ := os.ReadFile(filepath.Join(root, installedName))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	i := slices.Index(lines, p[0])
	if i < 0 {
		c.say("[Info]App uninstall path: msg:error: failed to uninstall bundle. code:9568386 error: uninstall missing installed bundle.")
		c.say("AppMod finish")
		return
	}
	lines = slices.Delete(lines, i, i+1)
	_ = os.WriteFile(filepath.Join(root, installedName), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	c.say("[Info]App uninstall path: msg:uninstall bundle successfully.")
	c.say("AppMod finish")
}
