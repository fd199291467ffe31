package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRedactSpec(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"tcp:server=debughost,port=5005", "tcp:server=debughost,port=5005"},
		{"tcp:server=debughost,port=5005,password=Sup3r", "tcp:server=debughost,port=5005,password=***"},
		{"tcp:Password=Sup3r,server=h,port=1", "tcp:Password=***,server=h,port=1"},
		{"npipe:server=h,pipe=dbg,password=a,b,c", "npipe:server=h,pipe=dbg,password=***"},
		{"npipe:server=h,password=a,b,pipe=dbg", "npipe:server=h,password=***,pipe=dbg"},
		{"tcp:port=5005,pwd=x", "tcp:port=5005,pwd=***"},
		{"ssl:proto=tls1.2,certuser=me,server=h,port=1,token=abc", "ssl:proto=tls1.2,certuser=me,server=h,port=1,token=***"},
		{"tcp:server=h,port=1,ApiKey=k", "tcp:server=h,port=1,ApiKey=***"},
		{"srv*C:\\sym*https://user:pw0rd@symbols.example/sym", "srv*C:\\sym*https://user:***@symbols.example/sym"},
		{"https://symbols.example/sym", "https://symbols.example/sym"},
		{"-y", "-y"},
		{"C:\\dumps\\app.dmp", "C:\\dumps\\app.dmp"},
	} {
		if got := redactSpec(tc.in); got != tc.want {
			t.Errorf("redactSpec(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// A password in the -remote spec (or a symbol URL in the cdb options)
// shows nowhere: not in -help, the server's log, the tool description,
// the initialize instructions or the request echo.
func TestRemotePasswordShownNowhere(t *testing.T) {
	const secret, symSecret = "Sup3rS3cretPw", "SymPw0rd"
	env := map[string]string{
		"WINDBG_REMOTE":   "tcp:server=debughost,port=5005,password=" + secret,
		"WINDBG_CDB_ARGS": "-y srv*C:\\sym*https://me:" + symSecret + "@symbols.example/sym",
	}
	var help bytes.Buffer
	if _, err := parseSettings([]string{"-help"}, func(k string) string { return env[k] }, &help); err == nil {
		t.Fatal("-help: no ErrHelp")
	}
	if s := help.String(); strings.Contains(s, secret) || strings.Contains(s, symSecret) || !strings.Contains(s, "password=***") {
		t.Errorf("-help shows a secret or hides the spec:\n%s", s)
	}

	f := newFake(t)
	f.cfg.Dump, f.cfg.Remote = "", env["WINDBG_REMOTE"]
	f.cfg.Args = append(f.cfg.Args, "-y", "srv*C:\\sym*https://me:"+symSecret+"@symbols.example/sym")
	h := startServer(t, f.cfg)
	c := &rpc{t: t, url: h.url}
	resp, hdr := c.do("initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "windbg-test", "version": "0"},
	}, true)
	if resp.Error != nil {
		t.Fatalf("initialize: %+v", resp.Error)
	}
	c.session = hdr.Get("Mcp-Session-Id")
	c.do("notifications/initialized", nil, false)
	list := c.call("tools/list", nil)
	for what, s := range map[string]string{
		"initialize": string(resp.Result),
		"tools/list": string(list.Result),
	} {
		if strings.Contains(s, secret) || !strings.Contains(s, "password=***") {
			t.Errorf("%s shows the password or no spec: %s", what, s)
		}
	}
	h.echo.waitLine(t, "tools/list", func(l string) bool { return strings.Contains(l, "rpc=tools/list") })
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	for what, s := range map[string]string{"log": h.log.String(), "echo": h.echo.String()} {
		if strings.Contains(s, secret) || strings.Contains(s, symSecret) {
			t.Errorf("the %s shows a secret:\n%s", what, s)
		}
	}
	if !strings.Contains(h.log.String(), "password=***") {
		t.Errorf("the log does not name the target:\n%s", h.log.String())
	}
}

// FuzzRedactSpec: a password option's value never survives redaction,
// wherever it stands in the spec and whatever it holds (commas included).
func FuzzRedactSpec(f *testing.F) {
	f.Add("tcp:server=h,port=5005", "Sup3r,pw", "x=1")
	f.Add("npipe:server=h", "a=b", "pipe=p")
	f.Add("", "pw", "")
	f.Add("ssl:proto=tls", "p@ss://x:y@z", "port=1")
	f.Add("tcp:server=h,key=Sup3r", "Sup3rT0ken", "port=1")
	f.Fuzz(func(t *testing.T, before, secret, after string) {
		if len(secret) < 4 || strings.ContainsAny(secret, "=\x00") || strings.Contains(before+after, secret) ||
			strings.Contains(masked, secret) || strings.Contains("password", secret) {
			return
		}
		spec := before + ",password=" + secret
		if after != "" {
			spec += "," + after
		}
		if strings.Contains(after, secret) || strings.Contains(after, "password") {
			return
		}
		if got := redactSpec(spec); strings.Contains(got, secret) {
			t.Fatalf("redactSpec(%q) = %q shows %q", spec, got, secret)
		}
		// What cdb prints of the password is masked whole, whatever other
		// secrets the spec holds (one may begin it), once its value ends
		// at an option of its own.
		if first, _, _ := strings.Cut(after, ","); (after == "" || strings.Contains(first, "=")) &&
			!strings.Contains(before+secret+after, "://") {
			if got := scrubber(spec)(secret); got != masked {
				t.Fatalf("scrubber(%q) shows %q as %q", spec, secret, got)
			}
		}
	})
}

// One secret that begins with another is masked whole: strings.Replacer
// prefers its pairs in argument order, so with the shorter one first, a
// line holding the longer showed its tail ("***T0kenValue").
func TestScrubberPrefixSecrets(t *testing.T) {
	const pw, token, sym = "Sup3r", "Sup3rT0kenValue", "Sup3rT0kenValueAndSym"
	for _, tc := range []struct {
		settings, secrets []string
	}{
		{[]string{"tcp:server=h,port=1,password=" + pw + ",token=" + token}, []string{pw, token}},
		{[]string{"tcp:server=h,port=1,password=" + pw, "srv*C:\\sym*https://me:" + token + "@symbols.example/sym"}, []string{pw, token}},
		{[]string{"tcp:server=h,port=1,password=" + pw, "-y", "https://me:" + sym + "@s.example", "x,token=" + token}, []string{pw, token, sym}},
	} {
		scrub := scrubber(tc.settings...)
		for _, secret := range tc.secrets {
			line := "Connected with 'x," + secret + ",y'"
			if got, want := scrub(line), "Connected with 'x,***,y'"; got != want {
				t.Errorf("settings %q: %q scrubbed to %q, want %q", tc.settings, line, got, want)
			}
		}
	}
}
