package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/gateway"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/winexec"
)

// gatewaySettings are the flags of `winbridge gateway`.
type gatewaySettings struct {
	config, policy, profile string
	httpAddr, audit         string
	auditMax                int64
	maxStarts               int
	bridge, check, plan     bool
	startTimeout, watch     time.Duration
	routes                  routeFlag
	logLevel                slog.Level
}

func parseGatewaySettings(args []string, out io.Writer) (*gatewaySettings, error) {
	s := &gatewaySettings{}
	fs := flag.NewFlagSet("winbridge gateway", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintf(out, "Usage: winbridge gateway -config FILE [flags]\n\nThe tool facade: one MCP server over the servers of an mcpServers configuration,\nwith the names, schemas, policy, approval, budgets and audit of docs/FACADE.md.\nServes stdio unless -http is given.\n\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&s.config, "config", "", "the mcpServers configuration `file` (required)")
	fs.StringVar(&s.policy, "policy", "", "the policy `file` (JSON; docs/FACADE.md); none: every tool, the defaults")
	fs.StringVar(&s.profile, "profile", "", "the policy `profile` to serve (default: the policy's \"profile\", then \"default\")")
	fs.StringVar(&s.httpAddr, "http", "", "serve Streamable HTTP on `addr` (e.g. 127.0.0.1:8788) instead of stdio")
	fs.StringVar(&s.audit, "audit", "", "append one JSON line per tool call to `file`, rotated by size")
	fs.Int64Var(&s.auditMax, "audit-max-bytes", gateway.DefaultAuditMaxBytes, "rotate the audit file past this many `bytes` (5 old files are kept)")
	fs.BoolVar(&s.bridge, "bridge", false, "also serve the bridge's own tools (win_exec, path_*, hdc_*) in process, as server \"bridge\"; they read the environment of docs/WINDOWS.md")
	fs.BoolVar(&s.check, "check", false, "validate the configuration and the policy, start nothing, and exit")
	fs.BoolVar(&s.plan, "plan", false, "start the servers, print the surface the model will see, and exit")
	fs.DurationVar(&s.startTimeout, "start-timeout", 2*time.Minute, "how long to wait for the servers at start-up (npx may download)")
	fs.IntVar(&s.maxStarts, "max-starts", 0, "start at most `n` servers at once, restarts included (0: two per CPU, at least four; -1: no bound)")
	fs.Var(&s.routes, "route", "with -http, also serve policy `PATH=PROFILE` at PATH (repeatable), e.g. /gemini=gemini; /mcp serves -profile")
	fs.DurationVar(&s.watch, "watch", 2*time.Second, "check the -config and -policy files for changes this often and reload them (0: only on SIGHUP)")
	level := fs.String("log-level", "info", "`level` of the log on stderr: debug, info, warn, error")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if s.config == "" && !s.bridge {
		return nil, errors.New("-config is required (or -bridge alone)")
	}
	if err := s.logLevel.UnmarshalText([]byte(*level)); err != nil {
		return nil, fmt.Errorf("-log-level: %w", err)
	}
	if len(s.routes) > 0 && s.httpAddr == "" {
		return nil, errors.New("-route needs -http")
	}
	if s.maxStarts < -1 {
		return nil, fmt.Errorf("-max-starts: want a count, 0 for the default or -1 for no bound, got %d", s.maxStarts)
	}
	return s, nil
}

// routeFlag collects -route PATH=PROFILE.
type routeFlag []route

type route struct{ path, profile string }

func (r *routeFlag) String() string {
	var parts []string
	for _, x := range *r {
		parts = append(parts, x.path+"="+x.profile)
	}
	return strings.Join(parts, ",")
}

func (r *routeFlag) Set(v string) error {
	path, profile, ok := strings.Cut(v, "=")
	if !ok || !strings.HasPrefix(path, "/") || path == "/mcp" || profile == "" {
		return fmt.Errorf("want PATH=PROFILE with PATH starting with / (not /mcp), got %q", v)
	}
	for _, x := range *r {
		if x.path == path {
			return fmt.Errorf("route %s given twice", path)
		}
	}
	*r = append(*r, route{path, profile})
	return nil
}

// serveGatewayHTTP serves the -profile surface at /mcp and each -route's
// profile at its path, until ctx ends. Each handler accepts only loopback
// Host and Origin headers, as `winbridge -http` does.
func serveGatewayHTTP(ctx context.Context, s *gatewaySettings, g *gateway.Gateway, log *slog.Logger, stderr io.Writer) int {
	mux := http.NewServeMux()
	var handlers []*mcphttp.Handler
	add := func(path string, srv *mcp.Server) {
		h := mcphttp.NewHandler(srv, &mcphttp.HandlerOptions{Logger: log})
		handlers = append(handlers, h)
		mux.Handle(path, h)
	}
	add("/mcp", g.Server())
	for _, r := range s.routes {
		srv, err := g.ServerFor(r.profile)
		if err != nil {
			fmt.Fprintln(stderr, "winbridge gateway: -route", r.path+":", err)
			return 2
		}
		add(r.path, srv)
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	ln, err := net.Listen("tcp", s.httpAddr)
	if err != nil {
		fmt.Fprintln(stderr, "winbridge gateway:", err)
		return 1
	}
	log.Info("winbridge gateway: serving Streamable HTTP", "url", "http://"+ln.Addr().String()+"/mcp", "routes", s.routes.String())
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, h := range handlers {
			_ = h.Shutdown(sctx)
		}
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(stderr, "winbridge gateway:", err)
		return 1
	}
	return 0
}

// runGateway is `winbridge gateway`.
func runGateway(args []string, stdout, stderr io.Writer) int {
	s, err := parseGatewaySettings(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "winbridge gateway:", err)
		return 2
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: s.logLevel}))
	opts, cleanup, err := gatewayOptions(s, log, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "winbridge gateway:", err)
		return 2
	}
	defer cleanup()
	g, err := gateway.New(opts)
	if err != nil {
		fmt.Fprintln(stderr, "winbridge gateway:", err)
		return 2
	}
	if s.check {
		for _, r := range s.routes {
			if _, err := g.ServerFor(r.profile); err != nil {
				fmt.Fprintln(stderr, "winbridge gateway: -route", r.path+":", err)
				return 2
			}
		}
		return gatewayCheck(opts, stdout)
	}
	defer g.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sctx, cancel := context.WithTimeout(ctx, s.startTimeout)
	err = g.Start(sctx)
	cancel()
	if err != nil {
		log.Warn("winbridge gateway: some servers did not start; they are retried with backoff", "err", err)
	}
	if s.plan {
		printPlan(stdout, g)
		if err != nil {
			return 1
		}
		return 0
	}
	go reloadLoop(ctx, s, opts, g, log)
	srv := g.Server()
	if s.httpAddr != "" {
		return serveGatewayHTTP(ctx, s, g, log, stderr)
	}
	return serveStdio(ctx, srv, log, stderr, "winbridge gateway")
}

// gatewayOptions reads the files and builds the Options; cleanup closes
// what it opened.
func gatewayOptions(s *gatewaySettings, log *slog.Logger, stderr io.Writer) (*gateway.Options, func(), error) {
	var closers []func()
	cleanup := func() {
		for _, c := range slices.Backward(closers) {
			c()
		}
	}
	opts := &gateway.Options{Profile: s.profile, Logger: log, MaxConcurrentStarts: s.maxStarts,
		Info:    &mcp.Implementation{Name: "winbridge-gateway", Title: "WinBridge tool facade", Version: version},
		Process: client.ProcessOptions{StderrLogger: log}}
	if err := loadFiles(s, opts); err != nil {
		return nil, cleanup, err
	}
	if s.bridge {
		bs, err := parseSettings(nil, os.Getenv, stderr)
		if err != nil {
			return nil, cleanup, err
		}
		if s.check {
			// -check starts nothing: the bridge's configuration is
			// checked, its executor is not made.
			opts.Servers = map[string]*mcp.Server{"bridge": mcp.NewServer(&mcp.Implementation{Name: "bridge"}, nil)}
		} else {
			cfg := bs.cfg
			cfg.Logger = log
			ex, err := winexec.New(cfg)
			if err != nil {
				return nil, cleanup, err
			}
			closers = append(closers, func() { ex.Close() })
			opts.Servers = map[string]*mcp.Server{"bridge": newServer(bs, ex, log)}
		}
	}
	if s.audit != "" && !s.check && !s.plan {
		rf, err := gateway.OpenRotatingFile(s.audit, s.auditMax, 0)
		if err != nil {
			return nil, cleanup, err
		}
		closers = append(closers, func() { rf.Close() })
		opts.Audit = slog.NewJSONHandler(rf, nil)
	}
	return opts, cleanup, nil
}

// gatewayCheck reports what -check found: the files parse and agree (New
// succeeded), and each server's program is found.
func gatewayCheck(opts *gateway.Options, out io.Writer) int {
	fmt.Fprintln(out, "configuration and policy: ok")
	status := 0
	if opts.Config != nil {
		names := make([]string, 0, len(opts.Config.Servers))
		for n := range opts.Config.Servers {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			sc := opts.Config.Servers[n]
			switch path, err := exec.LookPath(sc.Command); {
			case sc.Disabled:
				fmt.Fprintf(out, "server %s: disabled\n", n)
			case err != nil:
				fmt.Fprintf(out, "server %s: %s: not found\n", n, sc.Command)
				status = 1
			default:
				fmt.Fprintf(out, "server %s: %s\n", n, path)
			}
		}
	}
	for _, n := range slices.Sorted(maps.Keys(opts.HTTP)) {
		fmt.Fprintf(out, "server %s: %s (Streamable HTTP; not contacted)\n", n, opts.HTTP[n].URL)
	}
	if _, ok := opts.Servers["bridge"]; ok {
		fmt.Fprintln(out, "server bridge: in process")
	}
	return status
}

func printPlan(out io.Writer, g *gateway.Gateway) {
	for _, st := range g.Status() {
		line := fmt.Sprintf("server %s: %s, %d tools", st.Name, st.State, st.Tools)
		if st.Err != nil {
			line += ": " + st.Err.Error()
		}
		fmt.Fprintln(out, line)
	}
	tw := tabwriter.NewWriter(out, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "EXPOSED\tSOURCE\tRISK\tAPPROVAL\tBUDGETS\tSTATUS")
	for _, e := range g.Plan() {
		approval := "no"
		if e.Approval {
			approval = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s/%s\t%s\t%s\t%s\t%s\n", e.Exposed, e.Server, e.Tool, e.Risk, approval, e.Budgets, e.Status)
	}
	tw.Flush()
}

// loadFiles reads -config and -policy into opts.
func loadFiles(s *gatewaySettings, opts *gateway.Options) error {
	if s.config != "" {
		cfg, hs, err := gateway.LoadConfig(s.config)
		if err != nil {
			return err
		}
		opts.Config, opts.HTTP = cfg, hs
	}
	if s.policy != "" {
		p, err := gateway.LoadPolicy(s.policy)
		if err != nil {
			return err
		}
		opts.Policy = p
	}
	return nil
}

// reloadLoop reloads the configuration and the policy on SIGHUP and when
// either file changes (size or modification time, checked every -watch).
// A file that does not parse leaves everything as it was, with an error in
// the log.
func reloadLoop(ctx context.Context, s *gatewaySettings, base *gateway.Options, g *gateway.Gateway, log *slog.Logger) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	var tick <-chan time.Time
	if s.watch > 0 {
		t := time.NewTicker(s.watch)
		defer t.Stop()
		tick = t.C
	}
	stamp := func() string {
		var b strings.Builder
		for _, f := range []string{s.config, s.policy} {
			if f == "" {
				continue
			}
			if fi, err := os.Stat(f); err == nil {
				fmt.Fprintf(&b, "%s:%d:%d;", f, fi.Size(), fi.ModTime().UnixNano())
			}
		}
		return b.String()
	}
	last := stamp()
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
		case <-tick:
			if now := stamp(); now == last {
				continue
			}
		}
		last = stamp()
		opts := *base
		if err := loadFiles(s, &opts); err != nil {
			log.Error("winbridge gateway: reload refused; serving on with the previous configuration", "err", err)
			continue
		}
		if err := g.Reload(&opts); err != nil {
			log.Error("winbridge gateway: reload refused; serving on with the previous configuration", "err", err)
		}
	}
}
