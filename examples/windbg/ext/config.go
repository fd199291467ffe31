package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/winbridge/winbridge/internal/dbgcmd"
	"github.com/winbridge/winbridge/internal/httpserve"
)

// Defaults of Config; docs/WINDBG.md lists them with their variables.
const (
	defaultHTTP        = "127.0.0.1:8791"
	defaultTimeout     = 60 * time.Second
	defaultGrace       = 5 * time.Second
	defaultMaxOutput   = 1 << 20
	defaultEchoMaxText = 1024
	maxMaxOutput       = 64 << 20
	// maxEchoMaxText bounds the echo's cut: up to 256 echo lines of four
	// bodies each may wait for the worker.
	maxEchoMaxText = 64 << 10
)

// Config is the extension's configuration, read from the environment of
// the debugger process when the extension is loaded (see configFromEnv).
type Config struct {
	// HTTP is the listen address and its remote-access and token
	// settings; the address must be loopback unless AllowRemote and a
	// token are given (WINDBG_MCP_HTTP, default 127.0.0.1:8791).
	HTTP httpserve.Config
	// DottedNames names the tool windbg.eval instead of windbg_eval
	// (WINDBG_MCP_DOTTED_NAMES=1).
	DottedNames bool
	// Timeout limits one command; past it the engine is interrupted
	// (WINDBG_MCP_TIMEOUT, default 60s).
	Timeout time.Duration
	// Grace is how long an interrupted command has to return before the
	// call gives up on it (WINDBG_MCP_GRACE, default 5s).
	Grace time.Duration
	// MaxOutput caps the output kept per command, in bytes; the rest is
	// dropped with a note (WINDBG_MCP_MAX_OUTPUT, default 1 MiB, at most
	// 64 MiB).
	MaxOutput int
	// EchoMaxText is how many bytes of each body the echo prints before
	// cutting it (WINDBG_MCP_ECHO_MAX, default 1024, at most 64 KiB).
	EchoMaxText int
	// AllowSessionEnd lets commands that end, detach, restart or unload
	// the session through (WINDBG_MCP_ALLOW_SESSION_END=1); by default
	// they are refused (see CheckCommand).
	AllowSessionEnd bool
	// AllowHostCommands lets commands that reach past the session to the
	// host or the network (.shell, .create, .load, .logopen, .dump,
	// .sympath, .server...) through (WINDBG_MCP_ALLOW_HOST_COMMANDS=1); by
	// default they are refused.
	AllowHostCommands bool
	// ExtensionModules names extension modules that !module.command may
	// call besides the debugger's own (WINDBG_MCP_EXTENSION_MODULES,
	// comma-separated); the debugger loads a module it has not loaded
	// from its extension path, which holds every PATH directory.
	ExtensionModules []string
}

// configFromEnv reads the configuration through getenv.
func configFromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		HTTP: httpserve.Config{
			Addr:        getenv("WINDBG_MCP_HTTP"),
			AllowRemote: getenv("WINDBG_MCP_HTTP_ALLOW_REMOTE") == "1",
			TokenFile:   getenv("WINDBG_MCP_HTTP_TOKEN_FILE"),
			Token:       getenv("WINDBG_MCP_HTTP_TOKEN"),
		},
		DottedNames:       getenv("WINDBG_MCP_DOTTED_NAMES") == "1",
		AllowSessionEnd:   getenv("WINDBG_MCP_ALLOW_SESSION_END") == "1",
		AllowHostCommands: getenv("WINDBG_MCP_ALLOW_HOST_COMMANDS") == "1",
	}
	if c.HTTP.Addr == "" {
		c.HTTP.Addr = defaultHTTP
	}
	var errs []error
	dur := func(name string, def time.Duration) time.Duration {
		v := getenv(name)
		if v == "" {
			return def
		}
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			errs = append(errs, fmt.Errorf("%s=%q: want a positive duration such as 30s", name, v))
			return def
		}
		return d
	}
	num := func(name string, def, max int) int {
		v := getenv(name)
		if v == "" {
			return def
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > max {
			errs = append(errs, fmt.Errorf("%s=%q: want a number from 1 to %d", name, v, max))
			return def
		}
		return n
	}
	for _, m := range strings.Split(getenv("WINDBG_MCP_EXTENSION_MODULES"), ",") {
		if m = strings.TrimSpace(m); m == "" {
			continue
		}
		if err := dbgcmd.CheckModuleName(m); err != nil {
			errs = append(errs, fmt.Errorf("WINDBG_MCP_EXTENSION_MODULES: %w", err))
			continue
		}
		c.ExtensionModules = append(c.ExtensionModules, m)
	}
	c.Timeout = dur("WINDBG_MCP_TIMEOUT", defaultTimeout)
	c.Grace = dur("WINDBG_MCP_GRACE", defaultGrace)
	c.MaxOutput = num("WINDBG_MCP_MAX_OUTPUT", defaultMaxOutput, maxMaxOutput)
	c.EchoMaxText = num("WINDBG_MCP_ECHO_MAX", defaultEchoMaxText, maxEchoMaxText)
	return c, errors.Join(errs...)
}

// policy is what CheckCommand lets through.
func (c *Config) policy() Policy {
	return Policy{AllowSessionEnd: c.AllowSessionEnd, AllowHostCommands: c.AllowHostCommands, ExtensionModules: c.ExtensionModules}
}

// commandPolicy is the shared policy of c, for the tool description.
func (c *Config) commandPolicy() dbgcmd.Policy { return c.policy().shared() }

// toolName is the eval tool's name under the project's rule.
func (c *Config) toolName() string {
	if c.DottedNames {
		return "windbg.eval"
	}
	return "windbg_eval"
}
