package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/winbridge/winbridge/internal/jsonwalk"
)

// Config is the "mcpServers" configuration that Claude Desktop, Cursor
// and most MCP hosts read:
//
//	{
//	  "mcpServers": {
//	    "fs": {
//	      "command": "npx",
//	      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
//	      "env": {"DEBUG": "1"},
//	      "cwd": "/tmp",
//	      "disabled": false,
//	      "timeoutMs": 30000,
//	      "autoRestart": true,
//	      "lifecycle": "keep-alive"
//	    },
//	    "remote": {
//	      "type": "http",
//	      "url": "https://example.com/mcp",
//	      "headers": {"X-Tenant": "a"}
//	    }
//	  }
//	}
//
// An entry has either "command" (a stdio server, run as a child process)
// or "url" (a Streamable HTTP server; "type", when present, is "http",
// "streamable-http" or Cline's "streamableHttp", and "headers" is an object of strings sent with every
// request). Fields this package does not know are ignored, so one file
// can serve several hosts. A VS Code file (.vscode/mcp.json), whose
// servers are under "servers" instead, is read the same way when it has
// no "mcpServers".
//
// This package runs stdio servers only: it does not link net/http, so
// that a stdio client does not pay for it. A "url" entry is parsed here
// and connected by mcp/mcphttp (mcphttp.NewStream, then Connect); the
// Manager refuses it with ErrRemoteServer.
type Config struct {
	// Servers are the configured servers by name.
	Servers map[string]*ServerConfig
}

// Lifecycle says when a managed server runs.
type Lifecycle string

// The lifecycles of a managed server.
const (
	// KeepAlive servers start with Manager.Start and run until Close.
	KeepAlive Lifecycle = "keep-alive"
	// Ephemeral servers start on first use and stop after
	// ManagerOptions.IdleTimeout without calls.
	Ephemeral Lifecycle = "ephemeral"
)

// ServerConfig is one entry of "mcpServers".
type ServerConfig struct {
	// Name is the entry's key.
	Name string
	// URL is the endpoint of a Streamable HTTP server (http or https, no
	// user:password part); empty for a stdio server. Exactly one of URL
	// and Command is set.
	URL string
	// Headers are sent with every request to URL (names as written, no
	// two equal but for case). Their values may be credentials: never log
	// them.
	Headers map[string]string
	// Command, Args, Env and Cwd say what to run, with which extra
	// environment, where (stdio servers only).
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
	// Disabled servers are not started.
	Disabled bool
	// Timeout bounds each request to the server ("timeoutMs"); zero
	// leaves the client's default.
	Timeout time.Duration
	// AutoRestart restarts the server when it crashes
	// (ManagerOptions.Process.Restart, or the default RestartPolicy).
	AutoRestart bool
	// Lifecycle is KeepAlive (the default) or Ephemeral.
	Lifecycle Lifecycle

	path string // the entry's JSON path, for messages: mcpServers.NAME
}

// Path is the entry's JSON path in its file, such as mcpServers.fs or
// servers["my server"], for messages that point the user at it.
func (sc *ServerConfig) Path() string {
	if sc.path == "" {
		return member("mcpServers", sc.Name)
	}
	return sc.path
}

// ClientOptions returns base (nil: the zero Options) with the entry's
// timeoutMs applied; a call that runs out of it names the setting.
func (sc *ServerConfig) ClientOptions(base *Options) *Options {
	var o Options
	if base != nil {
		o = *base
	}
	if sc.Timeout > 0 {
		o.Timeout = sc.Timeout
		o.timeoutSetting = member(sc.Path(), "timeoutMs")
	}
	return &o
}

// ConfigError reports a problem in a configuration, naming the JSON path
// of the value at fault, as in
// `mcpServers.fs.args[2]: want string, got number`.
type ConfigError struct {
	Path    string // e.g. mcpServers.fs.args[2]; empty for the document itself
	Problem string
}

func (e *ConfigError) Error() string {
	if e.Path == "" {
		return "config: " + e.Problem
	}
	return "config: " + e.Path + ": " + e.Problem
}

// MaxConfigSize bounds a configuration, in bytes. Real ones are a few
// kilobytes; decoded, a document takes up to some twenty times its size,
// and a file that never ends (a device, a pipe) would otherwise be read
// until memory ran out.
const MaxConfigSize = 1 << 20

// maxConfigProblems bounds the problems a configuration's error reports,
// and maxElemProblems those of one array or object of strings (args, env):
// each problem is a line of the message, and an args array of a million
// numbers once made a message of 60 MiB.
const (
	maxConfigProblems = 100
	maxElemProblems   = 8
)

// LoadConfig reads and parses a configuration file of at most
// MaxConfigSize bytes.
func LoadConfig(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	// One byte more than allowed, so that ParseConfig sees it is too long.
	b, err := io.ReadAll(io.LimitReader(f, MaxConfigSize+1))
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	cfg, err := ParseConfig(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// ParseConfig parses an "mcpServers" configuration. Every problem is a
// *ConfigError; all of them are reported, joined. A member written twice
// under the servers is one of them.
func ParseConfig(data []byte) (*Config, error) {
	if len(data) > MaxConfigSize {
		return nil, &ConfigError{Problem: fmt.Sprintf("longer than %d bytes; a configuration is at most that (MaxConfigSize)", MaxConfigSize)}
	}
	doc, err := jsonwalk.Decode(data)
	if err != nil {
		return nil, &ConfigError{Problem: jsonwalk.Located(data, err)}
	}
	p := &configParser{}
	cfg := &Config{Servers: map[string]*ServerConfig{}}
	top, ok := p.Object("", doc)
	if !ok {
		return nil, p.err()
	}
	root := "mcpServers"
	rawServers, present := top[root]
	if !present {
		// VS Code's .vscode/mcp.json.
		root = "servers"
		rawServers, present = top[root]
	}
	if !present {
		return nil, &ConfigError{Path: "mcpServers", Problem: `missing (nor is there a VS Code "servers" object)`}
	}
	// A member written twice under the servers: encoding/json keeps the
	// last, as JSON.parse in the Node hosts does, so a reader who stops at
	// the first "command" of an entry, or the first entry of a name,
	// approves something else than what runs. Refused, naming it; other
	// hosts' settings outside the servers are left to them.
	dups := 0
	for _, d := range duplicateMembers(data) {
		if (d.path == "" && d.name == root) || d.path == root ||
			strings.HasPrefix(d.path, root+".") || strings.HasPrefix(d.path, root+"[") {
			if dups++; dups > maxElemProblems {
				p.Fail(root, "more members written twice not reported")
				break
			}
			p.Fail(d.path, "%s appears twice (JSON keeps the last; write it once)", strconv.Quote(d.name))
		}
	}
	servers, ok := p.Object(root, rawServers)
	if !ok {
		return nil, p.err()
	}
	names := make([]string, 0, len(servers))
	for name := range servers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if p.count() >= maxConfigProblems {
			p.Fail(root, "more problems not reported (stopped after %d)", maxConfigProblems)
			break
		}
		if sc := p.server(root, name, servers[name]); sc != nil {
			cfg.Servers[name] = sc
		}
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	return cfg, nil
}

type configParser struct{ jsonwalk.Walker }

// serverFields are the fields of an entry this package reads.
var serverFields = []string{"command", "args", "env", "cwd", "type", "url", "headers", "disabled", "timeoutMs", "autoRestart", "lifecycle"}

// dupMember is a member name that an object at path has more than once.
type dupMember struct{ path, name string }

// duplicateMembers lists the members data, a valid JSON document, has
// twice in an object, with the object's path (paths as member writes
// them). Decode, which accepted data, bounds the depth of the recursion.
func duplicateMembers(data []byte) []dupMember {
	dec := json.NewDecoder(bytes.NewReader(data))
	var dups []dupMember
	var walk func(path string) bool
	walk = func(path string) bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				k, ok := kt.(string)
				if err != nil || !ok {
					return false
				}
				if seen[k] {
					dups = append(dups, dupMember{path, k})
				}
				seen[k] = true
				if !walk(member(path, k)) {
					return false
				}
			}
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if !walk(jsonwalk.Index(path, i)) {
					return false
				}
			}
		default:
			return true
		}
		_, err = dec.Token() // the closing delimiter
		return err == nil
	}
	walk("")
	return dups
}

func (p *configParser) err() error {
	return p.Err(func(path, problem string) error { return &ConfigError{Path: path, Problem: problem} })
}

// count is the number of problems recorded so far.
func (p *configParser) count() int {
	n := 0
	p.Err(func(string, string) error { n++; return nil })
	return n
}

// member is the path of a member: a.b, or a["b c"] when b is not a plain
// name; dashes count as plain, as server names usually have them.
func member(path, name string) string { return jsonwalk.DashedMember(path, name) }

func (p *configParser) server(root, name string, v any) *ServerConfig {
	path := member(root, name)
	m, ok := p.Object(path, v)
	if !ok {
		return nil
	}
	sc := &ServerConfig{Name: name, Lifecycle: KeepAlive, path: path}
	// A field that differs from one of ours only in case is a mistake,
	// not another host's field: names are case-sensitive here and in every
	// host, so "Env" or "Args" was ignored and the server ran without
	// them (or a "Command" sat beside the "command" that runs).
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	bad := 0
	for _, k := range keys {
		for _, f := range serverFields {
			if k != f && strings.EqualFold(k, f) {
				bad++
				p.Fail(member(path, k), "not a field; the field is %q (names are case-sensitive)", f)
			}
		}
		if bad >= maxElemProblems {
			break
		}
	}
	if _, remote := m["url"]; remote {
		p.remote(path, m, sc)
	} else {
		p.stdio(path, m, sc)
	}
	if raw, ok := m["disabled"]; ok {
		sc.Disabled = p.Bool(member(path, "disabled"), raw)
	}
	if raw, ok := m["autoRestart"]; ok {
		sc.AutoRestart = p.Bool(member(path, "autoRestart"), raw)
	}
	if raw, ok := m["timeoutMs"]; ok {
		tp := member(path, "timeoutMs")
		n, isNum := raw.(json.Number)
		if !isNum {
			p.Fail(tp, "want number, got %s", jsonwalk.TypeName(raw))
		} else if f, err := n.Float64(); err != nil || f <= 0 || f != math.Trunc(f) || f > float64(math.MaxInt64/int64(time.Millisecond)) {
			p.Fail(tp, "want a positive whole number of milliseconds, got %s", n)
		} else {
			sc.Timeout = time.Duration(f) * time.Millisecond
		}
	}
	if raw, ok := m["lifecycle"]; ok {
		if s, ok := p.String(member(path, "lifecycle"), raw); ok {
			switch Lifecycle(s) {
			case KeepAlive, Ephemeral:
				sc.Lifecycle = Lifecycle(s)
			default:
				p.Fail(member(path, "lifecycle"), "want \"keep-alive\" or \"ephemeral\", got %q", s)
			}
		}
	}
	return sc
}

// stdio parses the fields of a server run as a command.
func (p *configParser) stdio(path string, m map[string]any, sc *ServerConfig) {
	if raw, ok := m["command"]; ok {
		if s, ok := p.String(member(path, "command"), raw); ok {
			if s == "" {
				p.Fail(member(path, "command"), "empty")
			}
			p.noHostVars(member(path, "command"), s, false)
			sc.Command = s
		}
	} else {
		p.Fail(member(path, "command"), "missing (or \"url\", for a Streamable HTTP server)")
	}
	if raw, ok := m["type"]; ok {
		if s, ok := p.String(member(path, "type"), raw); ok && s != "stdio" {
			if httpType(s) {
				p.Fail(member(path, "url"), "missing (\"type\" is %q)", s)
			} else {
				p.Fail(member(path, "type"), "%q servers are not supported; want \"stdio\" with \"command\", or \"http\" with \"url\"", s)
			}
		}
	}
	if _, ok := m["envFile"]; ok {
		// VS Code's: a file of more variables for the server. Ignored
		// as another host's field, the server would run without them,
		// and the user would see only its own refusal (no API key); read,
		// its usual path ("${workspaceFolder}/.env") means a workspace
		// this package does not have.
		p.Fail(member(path, "envFile"), "environment files are not read; put the variables in \"env\"")
	}
	if raw, ok := m["args"]; ok {
		arr, _ := p.Array(member(path, "args"), raw)
		bad := 0
		for i, a := range arr {
			if _, ok := a.(string); !ok {
				if bad++; bad > maxElemProblems {
					p.Fail(member(path, "args"), "more elements that are not strings")
					break
				}
			}
			if s, ok := p.String(jsonwalk.Index(member(path, "args"), i), a); ok {
				p.noHostVars(jsonwalk.Index(member(path, "args"), i), s, true)
				sc.Args = append(sc.Args, s)
			}
		}
	}
	if raw, ok := m["env"]; ok {
		if env, ok := p.Object(member(path, "env"), raw); ok {
			sc.Env = map[string]string{}
			keys := make([]string, 0, len(env))
			for k := range env {
				keys = append(keys, k)
			}
			slices.Sort(keys) // the problems, in the same order each time
			bad := 0
			for _, k := range keys {
				v := env[k]
				if _, ok := v.(string); !ok || k == "" || bytes.ContainsAny([]byte(k), "=\x00") {
					if bad++; bad > maxElemProblems {
						p.Fail(member(path, "env"), "more problems not reported")
						break
					}
				}
				if k == "" || bytes.ContainsAny([]byte(k), "=\x00") {
					// Shown up to the "=": a name written as KEY=VALUE (a line of
					// a .env file, docker's -e) has the value, likely a
					// credential, after it.
					shown, _, cut := strings.Cut(k, "=")
					shown, _, cut0 := strings.Cut(shown, "\x00")
					if cut || cut0 {
						shown += "…"
					}
					p.Fail(member(path, "env"), "invalid variable name %q (a name has no \"=\" or NUL; the value goes after the colon)", shown)
					continue
				}
				if s, ok := p.String(member(member(path, "env"), k), v); ok {
					p.noHostVars(member(member(path, "env"), k), s, false)
					sc.Env[k] = s
				}
			}
		}
	}
	if raw, ok := m["cwd"]; ok {
		sc.Cwd, _ = p.String(member(path, "cwd"), raw)
		p.noHostVars(member(path, "cwd"), sc.Cwd, false)
	}
}

// Other hosts' variables: VS Code's and Cursor's ${input:ID}, ${env:NAME},
// ${workspaceFolder}, ${userHome}, ...; Claude Code's ${NAME} and
// ${NAME:-default}. This package expands none of them: a configuration
// runs with exactly what it says, and expanding this process's variables
// would hand its secrets (which DefaultEnv keeps from servers) to any
// server whose entry names them, a URL's query included. A value with one
// is refused rather than passed as written (a server got the token
// "${API_KEY}", a header said "Bearer ${input:pat}", and the user saw
// only the server's refusal). In args a shell may be the one to expand
// ${NAME} ("sh", "-c", "... ${HOME}"): only the forms no shell knows are
// refused there.
var (
	anyHostVar   = regexp.MustCompile(`\$\{[^{}]+\}`)
	hostOnlyVars = regexp.MustCompile(`\$\{(?:(?:env|input|config|command):[^{}]*|workspaceFolder|workspaceFolderBasename|userHome|pathSeparator|/)\}`)
	namedHostVar = regexp.MustCompile(`^\$\{(?:(?:env|input|config|command):[A-Za-z0-9_.-]{1,64}|[A-Za-z_][A-Za-z0-9_]{0,63}|/)\}$`)
	varName      = regexp.MustCompile(`^\$\{[A-Za-z_][A-Za-z0-9_]{0,63}:`)
)

// noHostVars records a problem if s holds another host's variable (in
// args, only one no shell would expand). The message shows the variable,
// not the value; of a variable with a default (${NAME:-default}) only the
// name, as the default may be a credential, and of anything else between
// braces nothing.
func (p *configParser) noHostVars(path, s string, inArgs bool) {
	re := anyHostVar
	if inArgs {
		re = hostOnlyVars
	}
	v := re.FindString(s)
	if v == "" {
		return
	}
	switch {
	case namedHostVar.MatchString(v):
	case varName.MatchString(v):
		v = varName.FindString(v) + "…}" // ${NAME:…}: the default may be a credential
	default:
		v = "${…}"
	}
	p.Fail(path, "%s is a variable of another host (VS Code, Cursor, Claude Code); variables are not expanded here: write the value", v)
}

// CommandSpec returns the Command that runs the server.
func (sc *ServerConfig) CommandSpec() *Command {
	cmd := &Command{Path: sc.Command, Args: slices.Clone(sc.Args), Dir: sc.Cwd}
	keys := make([]string, 0, len(sc.Env))
	for k := range sc.Env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		cmd.Env = append(cmd.Env, k+"="+sc.Env[k])
	}
	return cmd
}
