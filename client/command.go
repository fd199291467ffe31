package client

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
)

// Command describes an MCP server to run as a child process that speaks
// the protocol on its standard input and output.
type Command struct {
	// Path is the program. A name without a path separator is looked up in
	// the child's PATH: Env's when it sets one, as Node's spawn does (and
	// so the hosts whose configs this package reads). "npx" is recognised and launched so that it works everywhere
	// (see Npx).
	Path string
	// Args are the arguments, without the program name.
	Args []string
	// Env holds KEY=VALUE pairs added to the child's environment, over the
	// inherited ones.
	Env []string
	// InheritEnv passes the whole environment of this process to the child
	// instead of the allowlist of DefaultEnv (the home, network, certificate,
	// locale and temporary-file settings, never a credential).
	InheritEnv bool
	// Dir is the child's working directory; empty means this process's.
	Dir string
}

// Npx returns a Command that runs `npx -y PACKAGE ARGS...`: the npm package
// pkg (optionally pinned, "name@version") is downloaded on first use and
// run. npx is found in PATH when the process starts; on Windows, where it
// is a batch file, it is run through node and npx-cli.js when they sit
// beside it and otherwise through cmd.exe with every argument quoted, so
// no shell ever sees an unquoted argument. Processes launched from an npx
// Command get ProcessOptions.NpxStartTimeout, as the first run downloads.
func Npx(pkg string, args ...string) (*Command, error) {
	if pkg == "" || strings.HasPrefix(pkg, "-") || strings.ContainsAny(pkg, " \t\r\n") {
		return nil, fmt.Errorf("client: npx: invalid package name %q", pkg)
	}
	return &Command{Path: "npx", Args: append([]string{"-y", pkg}, args...)}, nil
}

// IsNpx reports whether the command runs npx, and so may download its
// package on first start.
func (c *Command) IsNpx() bool {
	// Either separator: a config written for Windows names npx.cmd with
	// backslashes, and a path is a path wherever it is checked.
	base := strings.ToLower(c.Path[strings.LastIndexAny(c.Path, `/\`)+1:])
	for _, ext := range []string{".cmd", ".exe", ".bat", ".ps1"} {
		base = strings.TrimSuffix(base, ext)
	}
	return base == "npx"
}

// name is a short label for logs and errors: the program, and for npx the
// package when an argument reads as one (npxPackage). Every log record and
// error of the server carries it, so it shows nothing else: the value of
// an option (--registry https://me:pw@npm.corp/, --cache DIR) is skipped,
// and a package given as a tarball or git URL, which may hold a token, is
// not named. Before, the first argument not starting with "-" was shown,
// whatever it was.
func (c *Command) name() string {
	n := filepath.Base(c.Path)
	if !c.IsNpx() {
		return n
	}
	optValue := false // the previous argument was an option that may take one
	for _, a := range c.Args {
		if strings.HasPrefix(a, "-") {
			optValue = !strings.Contains(a, "=") && !slices.Contains(npxFlags, a)
			continue
		}
		if npxPackage.MatchString(a) {
			return n + " " + a
		}
		if !optValue {
			break // the package, as a URL or path: not shown
		}
		optValue = false
	}
	return n
}

// npxPackage matches a package as npm names one on a command line: an
// optional scope, a name, an optional version, range or tag.
var npxPackage = regexp.MustCompile(`^(@[A-Za-z0-9~-][A-Za-z0-9._~-]*/)?[A-Za-z0-9~-][A-Za-z0-9._~-]{0,213}(@[A-Za-z0-9._^~*+<>=|-]{1,64})?$`)

// npxFlags are npx's and npm's options that take no value.
var npxFlags = []string{"-y", "--yes", "--no", "--no-yes", "-q", "--quiet", "-s", "--silent",
	"--no-install", "--ignore-existing", "--prefer-offline", "--prefer-online", "--offline", "--verbose", "-d"}

// environ is the child's environment: the base (allowlist or everything)
// with Env laid over it, later entries winning.
func (c *Command) environ() []string {
	base := DefaultEnv()
	if c.InheritEnv {
		base = os.Environ()
	}
	return mergeEnv(base, c.Env, runtime.GOOS == "windows")
}

// mergeEnv returns base with over applied, one entry per name; Windows
// names compare without case.
func mergeEnv(base, over []string, foldCase bool) []string {
	key := func(kv string) string {
		k, _, _ := strings.Cut(kv, "=")
		if foldCase {
			return strings.ToUpper(k)
		}
		return k
	}
	index := map[string]int{}
	out := make([]string, 0, len(base)+len(over))
	for _, kv := range append(append([]string(nil), base...), over...) {
		k := key(kv)
		if i, ok := index[k]; ok {
			out[i] = kv
			continue
		}
		index[k] = len(out)
		out = append(out, kv)
	}
	return out
}

// cmdMeta are the characters cmd.exe treats specially, as in cross-spawn,
// the library npm itself uses to run batch files.
const cmdMeta = "()][%!^\"`<>&|;, *?"

// cmdLine builds a cmd.exe command line that runs a batch file with
// exactly args, for Windows, where a .cmd (npx.cmd) cannot be started
// without the shell: `cmd.exe /d /s /c "PROGRAM ARGS..."`. Each argument is
// quoted by the rules of CommandLineToArgvW and then every cmd.exe
// metacharacter is escaped with ^, twice, because the batch file hands %*
// to another parse (the escaping of cross-spawn, which npm uses).
func cmdLine(comspec, program string, args []string) string {
	var b strings.Builder
	b.WriteString(caretEscape(program))
	for _, a := range args {
		b.WriteByte(' ')
		b.WriteString(caretEscape(caretEscape(quoteArg(a))))
	}
	return quoteIfNeeded(comspec) + ` /d /s /c "` + b.String() + `"`
}

// quoteArg quotes a for CommandLineToArgvW: backslashes are doubled before
// a quote and at the end, quotes are escaped.
func quoteArg(a string) string {
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(a); i++ {
		c := a[i]
		switch c {
		case '\\':
			slashes++
		case '"':
			b.WriteString(strings.Repeat(`\`, slashes+1))
			slashes = 0
		default:
			slashes = 0
		}
		b.WriteByte(c)
	}
	b.WriteString(strings.Repeat(`\`, slashes))
	b.WriteByte('"')
	return b.String()
}

func caretEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(cmdMeta, s[i]) >= 0 {
			b.WriteByte('^')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func quoteIfNeeded(s string) string {
	if strings.ContainsAny(s, " \t\"") {
		return quoteArg(s)
	}
	return s
}

// errNoProgram reports a Command without a program.
var errNoProgram = errors.New("client: Command.Path is empty")

// argv resolves the program to run and its arguments. On Windows a batch
// file (npx.cmd and the like) gets a cmd.exe command line in cmdline, to be
// passed verbatim; npx is run through node and npx-cli.js when they sit
// beside npx.cmd, which needs no shell at all.
func (c *Command) argv() (path string, args []string, cmdline string, err error) {
	if c.Path == "" {
		return "", nil, "", errNoProgram
	}
	path = c.Path
	if c.IsNpx() && filepath.Base(path) == path {
		path = "npx"
	}
	if path, err = lookPath(path, c.Dir, c.environ()); err != nil {
		return "", nil, "", err
	}
	args = c.Args
	if runtime.GOOS != "windows" {
		return path, args, "", nil
	}
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".cmd" && ext != ".bat" {
		return path, args, "", nil
	}
	if c.IsNpx() {
		dir := filepath.Dir(path)
		node := filepath.Join(dir, "node.exe")
		cli := filepath.Join(dir, "node_modules", "npm", "bin", "npx-cli.js")
		if isFile(node) && isFile(cli) {
			return node, append([]string{cli}, args...), "", nil
		}
	}
	comspec := os.Getenv("ComSpec")
	if comspec == "" {
		comspec = `C:\Windows\System32\cmd.exe`
	}
	return comspec, args, cmdLine(comspec, path, args), nil
}

// lookPath finds a program as exec.Command would, except that a relative
// path with a separator is taken relative to dir, the child's working
// directory, where the config that named it expects it, and that a bare
// name is looked up in the PATH of env, the child's environment. That is
// what Node's child_process.spawn does, and so Claude Desktop, Cursor and
// VS Code: a config's "env": {"PATH": ...} is how users point a host at
// the node and npx they want (a GUI app's own PATH often lacks them).
// Before, the name was looked up in this process's PATH, so the program
// was not found, or another one ran, under the PATH the config set.
func lookPath(path, dir string, env []string) (string, error) {
	if filepath.Base(path) == path {
		childPath, _ := envValue(env, "PATH", runtime.GOOS == "windows")
		if childPath != os.Getenv("PATH") {
			return lookPathIn(path, childPath)
		}
		p, err := execLookPath(path)
		if err != nil {
			return "", fmt.Errorf("client: %w", err)
		}
		return p, nil
	}
	if !filepath.IsAbs(path) && dir != "" {
		// Made absolute: exec takes a relative path from the child's
		// directory, so with a relative dir, dir/path was looked for under
		// dir twice (dir/dir/path), and the program was not found.
		p, err := filepath.Abs(filepath.Join(dir, path))
		if err != nil {
			return "", fmt.Errorf("client: %w", err)
		}
		return p, nil
	}
	return path, nil
}

// lookPathIn looks file up in the directories of list, a PATH value. As
// exec.LookPath does with this process's PATH, relative entries (an empty
// one is ".") are skipped: they would run whatever sits in the working
// directory. The error does not repeat list.
func lookPathIn(file, list string) (string, error) {
	for _, dir := range filepath.SplitList(list) {
		if !filepath.IsAbs(dir) {
			continue
		}
		// With a separator, LookPath checks just that file (trying PATHEXT's
		// extensions on Windows).
		if p, err := exec.LookPath(filepath.Join(dir, file)); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("client: %w (in the PATH of the server's environment)", &exec.Error{Name: file, Err: exec.ErrNotFound})
}

// envValue is the value of name in env (KEY=VALUE pairs, the last one
// winning, as mergeEnv leaves one); names compare without case on Windows.
func envValue(env []string, name string, foldCase bool) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		k, v, _ := strings.Cut(env[i], "=")
		if k == name || (foldCase && strings.EqualFold(k, name)) {
			return v, true
		}
	}
	return "", false
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
