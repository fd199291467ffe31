package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/winexec"
)

func inproc() map[string]*mcp.Server { return map[string]*mcp.Server{"up": upstreamServer()} }

func TestCallGoesThrough(t *testing.T) {
	f := start(t, &Options{Servers: inproc()}, nil)
	res, code := f.call(t, "up__echo", map[string]any{"text": "hi 中文"})
	if code != CodeOK || res.IsError || res.TextOf() != "hi 中文" {
		t.Fatalf("%s %+v", code, res)
	}
	rec := f.audit.last(t)
	for k, want := range map[string]any{"server": "up", "tool": "echo", "exposed": "up__echo", "outcome": "ok", "code": "ok", "profile": "default", "approval": "not_required", "cut": false} {
		if rec[k] != want {
			t.Errorf("audit %s = %v, want %v", k, rec[k], want)
		}
	}
	if rec["argBytes"].(int64) == 0 || rec["resultBytes"].(int64) != int64(len("hi 中文")) || rec["session"] == "" || rec["client"] != "winbridge" {
		t.Errorf("audit %v", rec)
	}
	// The audit never holds content.
	b, _ := json.Marshal(rec)
	if strings.Contains(string(b), "hi 中文") {
		t.Errorf("audit holds the arguments: %s", b)
	}
}

func TestStepUnknownTool(t *testing.T) {
	f := start(t, &Options{Servers: inproc()}, nil)
	res, code := f.call(t, "nope", nil)
	if code != CodeUnknownTool || !strings.Contains(res.TextOf(), "nope") {
		t.Fatalf("%s %+v", code, res)
	}
	if rec := f.audit.last(t); rec["code"] != "unknown_tool" || rec["outcome"] != "refused" || rec["server"] != "" {
		t.Errorf("audit %v", rec)
	}
	// Names no server could register get the same answer.
	for _, name := range []string{"no such tool 中文", strings.Repeat("x", 300), `a.b/c\d`} {
		if _, code := f.call(t, name, nil); code != CodeUnknownTool {
			t.Errorf("%.20q: %s", name, code)
		}
	}
}

func TestStepPolicy(t *testing.T) {
	pol := mustPolicy(t, `{"profiles":{"default":{"allow":["up/*"],"deny":["up/del*"]}},
		"tools":{"up/big":{"hidden":true}}}`)
	f := start(t, &Options{Servers: inproc(), Policy: pol}, nil)
	listed := f.names(t)
	if listed["up__delete"] != nil || listed["up__big"] != nil || listed["up__echo"] == nil {
		t.Fatalf("listed: %v", listed)
	}
	for _, name := range []string{"up__delete", "up__big"} {
		if _, code := f.call(t, name, map[string]any{"path": "/x"}); code != CodeDenied {
			t.Errorf("%s: %s", name, code)
		}
	}
}

func TestStepKillSwitch(t *testing.T) {
	f := start(t, &Options{Servers: inproc()}, nil)
	if err := f.g.SetServerEnabled("up", false); err != nil {
		t.Fatal(err)
	}
	if _, code := f.call(t, "up__echo", map[string]any{"text": "x"}); code != CodeServerDisabled && code != CodeUnknownTool {
		t.Fatalf("after the kill switch: %s", code)
	}
	if len(f.names(t)) != 0 {
		t.Errorf("tools still listed: %v", f.names(t))
	}
	if err := f.g.SetServerEnabled("up", true); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.g.waitSettled(ctx); err != nil {
		t.Fatal(err)
	}
	if _, code := f.call(t, "up__echo", map[string]any{"text": "x"}); code != CodeOK {
		t.Fatalf("after enabling: %s", code)
	}
}

func TestStepArgumentBytes(t *testing.T) {
	pol := mustPolicy(t, `{"limits":{"maxArgumentBytes":1000},"tools":{"up/read":{"maxArgumentBytes":50}}}`)
	f := start(t, &Options{Servers: inproc(), Policy: pol}, nil)
	if _, code := f.call(t, "up__echo", map[string]any{"text": strings.Repeat("x", 2000)}); code != CodeArgumentsTooLarge {
		t.Errorf("echo: %s", code)
	}
	if _, code := f.call(t, "up__read", map[string]any{"path": strings.Repeat("x", 60)}); code != CodeArgumentsTooLarge {
		t.Errorf("read: %s", code)
	}
	if rec := f.audit.last(t); rec["argBytes"].(int64) < 60 {
		t.Errorf("audit %v", rec)
	}
}

func TestStepStrictValidation(t *testing.T) {
	f := start(t, &Options{Servers: inproc()}, nil)
	res, code := f.call(t, "up__add", json.RawMessage(`{"a":"5","b":2}`))
	if code != CodeInvalidArguments || !strings.Contains(res.TextOf(), "not converted") {
		t.Fatalf("%s %s", code, res.TextOf())
	}
	// add declares an outputSchema: clients check structuredContent
	// against it even in errors, so the code is in _meta alone.
	if res.StructuredContent != nil {
		t.Errorf("a refusal of a tool with an outputSchema carries structuredContent: %v", res.StructuredContent)
	}
	if _, code := f.call(t, "up__add", json.RawMessage(`{"a":5.5,"b":2}`)); code != CodeInvalidArguments {
		t.Errorf("5.5 for an integer: %s", code)
	}
	if _, code := f.call(t, "up__add", json.RawMessage(`[1,2]`)); code != CodeInvalidArguments {
		t.Errorf("array arguments: %s", code)
	}
	// Duplicate members: parsers disagree on which one counts.
	if res, code := f.call(t, "up__add", json.RawMessage(`{"a":5,"b":2,"\u0061":"5"}`)); code != CodeInvalidArguments || !strings.Contains(res.TextOf(), "given twice") {
		t.Errorf("duplicate member: %s %s", code, res.TextOf())
	}
	if _, code := f.call(t, "up__echo", json.RawMessage(`{"text":"x","nested":[{"k":1,"k":2}]}`)); code != CodeInvalidArguments {
		t.Errorf("nested duplicate: %s", code)
	}
	res, code = f.call(t, "up__add", json.RawMessage(`{"a":5,"b":2}`))
	if code != CodeOK || !strings.Contains(res.TextOf(), "7") {
		t.Fatalf("%s %+v", code, res)
	}
}

func TestStepScope(t *testing.T) {
	dir := t.TempDir()
	mount := filepath.Join(dir, "mnt") + "/"
	work := filepath.Join(dir, "mnt", "c", "work")
	outside := filepath.Join(dir, "mnt", "c", "secret")
	for _, d := range []string{work, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(work, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(work, "dangling")); err != nil {
		t.Fatal(err)
	}
	pol := &Policy{Roots: []string{`C:\work`}, Tools: map[string]*ToolRule{"up/read": {PathArgs: []string{"path", "more[]"}}},
		Approval: Approval{Default: "never"}}
	f := start(t, &Options{Servers: inproc(), Policy: pol, PathMapper: &winexec.PathMapper{MountRoot: mount, Distro: "Ubuntu"}}, nil)
	cases := []struct {
		path string
		more []string
		want Code
	}{
		{work + "/a.txt", nil, CodeOK},
		{`C:\work\sub\new.txt`, nil, CodeOK},
		{`c:/WORK/a.txt`, nil, CodeOK}, // drives compare without case
		{work + "/../secret/x", nil, CodePathOutsideRoots},
		{`C:\work\..\secret`, nil, CodePathOutsideRoots},
		{`C:\..\..\etc\passwd`, nil, CodePathOutsideRoots},
		{work + "/link/x", nil, CodePathOutsideRoots},
		{work + "/link/../../work/a", nil, CodePathOutsideRoots}, // ".." from where the link led
		{work + "/dangling", nil, CodePathInvalid},
		{`\\fileserver\share\x`, nil, CodePathInvalid},
		{`\\wsl.localhost\Ubuntu\etc\passwd`, nil, CodePathOutsideRoots},
		{`\\?\C:\work\..\secret`, nil, CodePathOutsideRoots},
		{mount + "c/work/../secret", nil, CodePathOutsideRoots},
		{work + `/x\..\..\secret`, nil, CodePathOutsideRoots}, // backslashes read as a Windows program would
		{"relative/x", nil, CodePathInvalid},
		{"", nil, CodePathInvalid},
		{work + "/a", []string{work + "/b", "/etc/passwd"}, CodePathOutsideRoots},
	}
	for _, c := range cases {
		args := map[string]any{"path": c.path}
		if c.more != nil {
			args["more"] = c.more
		}
		res, code := f.call(t, "up__read", args)
		if code != c.want {
			t.Errorf("%q %v: got %s (%s), want %s", c.path, c.more, code, res.TextOf(), c.want)
		}
	}
}

func TestPathArgsNeedRoots(t *testing.T) {
	_, err := New(&Options{Policy: &Policy{Tools: map[string]*ToolRule{"a/b": {PathArgs: []string{"p"}}}}})
	if err == nil {
		t.Fatal("pathArgs without roots accepted")
	}
}

func TestStepApproval(t *testing.T) {
	// Both eras: a request to the client on the session (legacy), and an
	// input-required result with a retried call (2026-07-28).
	for _, v := range []string{mcp.LatestLegacyVersion, mcp.LatestVersion} {
		t.Run(v, func(t *testing.T) { testApproval(t, v) })
	}
}

func testApproval(t *testing.T, version string) {
	var answer string
	asked := 0
	copts := &client.Options{ProtocolVersion: version, OnElicitation: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		asked++
		// The user approves what will be sent, so it is shown.
		if !strings.Contains(p.Message, "up__delete") || !strings.Contains(p.Message, `Arguments: {"path":"/x"}`) {
			t.Errorf("message %q", p.Message)
		}
		return &mcp.ElicitResult{Action: answer}, nil
	}}
	f := start(t, &Options{Servers: inproc()}, copts)
	for _, c := range []struct {
		answer string
		code   Code
		rec    string
	}{{"accept", CodeOK, "accepted"}, {"decline", CodeApprovalDeclined, "declined"}, {"cancel", CodeApprovalCancelled, "cancelled"}} {
		answer = c.answer
		if _, code := f.call(t, "up__delete", map[string]any{"path": "/x"}); code != c.code {
			t.Errorf("%s: %s", c.answer, code)
		}
		if rec := f.audit.last(t); rec["approval"] != c.rec {
			t.Errorf("%s: audit approval %v", c.answer, rec["approval"])
		}
	}
	// A read-only tool is not asked about.
	before := asked
	if _, code := f.call(t, "up__echo", map[string]any{"text": "x"}); code != CodeOK || asked != before {
		t.Errorf("echo: %s, asked %d", code, asked-before)
	}

	// A client without elicitation is refused, unless the policy allows.
	f2 := start(t, &Options{Servers: inproc()}, nil)
	res, code := f2.call(t, "up__delete", map[string]any{"path": "/x"})
	if code != CodeApprovalUnavailable || !strings.Contains(res.TextOf(), "elicitation") {
		t.Errorf("no elicitation: %s %s", code, res.TextOf())
	}
	f3 := start(t, &Options{Servers: inproc(), Policy: mustPolicy(t, `{"approval":{"withoutElicitation":"allow"}}`)}, nil)
	if _, code := f3.call(t, "up__delete", map[string]any{"path": "/x"}); code != CodeOK {
		t.Errorf("allowed without elicitation: %s", code)
	}
	// Rules: never for up/delete, always for up/echo.
	f4 := start(t, &Options{Servers: inproc(), Policy: mustPolicy(t, `{"approval":{"rules":[{"tool":"up/delete","require":"never"},{"tool":"up/ech?","require":"always"}]}}`)}, nil)
	if _, code := f4.call(t, "up__delete", map[string]any{"path": "/x"}); code != CodeOK {
		t.Errorf("rule never: %s", code)
	}
	if _, code := f4.call(t, "up__echo", map[string]any{"text": "x"}); code != CodeApprovalUnavailable {
		t.Errorf("rule always: %s", code)
	}
}

func TestStepBudgets(t *testing.T) {
	pol := mustPolicy(t, `{"budgets":{"callsPerSession":3},"tools":{"up/slow":{"budgets":{"concurrentPerTool":1,"timeoutMs":300}}}}`)
	f := start(t, &Options{Servers: inproc(), Policy: pol}, nil)
	for i := range 3 {
		if _, code := f.call(t, "up__echo", map[string]any{"text": "x"}); code != CodeOK {
			t.Fatalf("call %d: %s", i, code)
		}
	}
	if _, code := f.call(t, "up__echo", map[string]any{"text": "x"}); code != CodeSessionBudget {
		t.Fatalf("4th call: %s", code)
	}

	// Concurrency and walltime, on a fresh session.
	f2 := start(t, &Options{Servers: inproc(), Policy: mustPolicy(t, `{"tools":{"up/slow":{"budgets":{"concurrentPerTool":1,"timeoutMs":2000}}}}`)}, nil)
	first := f2.c.CallToolAsync(context.Background(), "up__slow", nil)
	// Wait until the first call holds the tool's slot.
	deadline := time.Now().Add(10 * time.Second)
	for f2.g.concurrency("up/slow").Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the first call never started")
		}
		time.Sleep(time.Millisecond)
	}
	if _, code := f2.call(t, "up__slow", nil); code != CodeToolBusy {
		t.Errorf("second concurrent call: %s", code)
	}
	res, err := first.Wait()
	if err != nil || codeOf(res) != CodeTimeout {
		t.Errorf("walltime: %v %+v", err, res)
	}
	if n := f2.g.concurrency("up/slow").Load(); n != 0 {
		t.Errorf("%d calls still counted", n)
	}
}

func TestStepOutputCaps(t *testing.T) {
	pol := mustPolicy(t, `{"limits":{"maxBlockBytes":10000,"maxResultBytes":15000}}`)
	f := start(t, &Options{Servers: inproc(), Policy: pol}, nil)
	res, code := f.call(t, "up__big", nil)
	if code != CodeOK {
		t.Fatal(code)
	}
	total := 0
	for _, b := range res.Content {
		n, _ := blockSize(b)
		total += n
	}
	if total > 15000+200 {
		t.Errorf("%d bytes came through", total)
	}
	first := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(first, "[cut by the gateway") || len(first) > 10000 || !json.Valid([]byte(`"`+strings.Split(first, "\n")[0]+`"`)) {
		t.Errorf("first block: %d bytes, ends %q", len(first), first[max(0, len(first)-60):])
	}
	if !strings.Contains(res.TextOf(), "image block of") {
		t.Errorf("the image was not replaced: %s", res.TextOf()[max(0, len(res.TextOf())-300):])
	}
	meta, _ := res.Meta[MetaKey].(map[string]any)
	if meta == nil || meta["cut"] != true {
		t.Errorf("_meta: %v", res.Meta)
	}
	if rec := f.audit.last(t); rec["cut"] != true || rec["resultBytes"].(int64) > 15200 {
		t.Errorf("audit %v", rec)
	}
}

func TestStepOutputSchema(t *testing.T) {
	f := start(t, &Options{Servers: inproc()}, nil)
	if _, code := f.call(t, "up__lying", nil); code != CodeOutputSchema {
		t.Fatalf("%s", code)
	}
	res, code := f.call(t, "up__add", map[string]any{"a": 1, "b": 2})
	if code != CodeOK || res.StructuredContent == nil {
		t.Fatalf("%s %+v", code, res)
	}
}

// TestHostileUpstream: a stdio server with hostile names, schemas and
// results. The facade keeps serving and writes every audit line.
func TestHostileUpstream(t *testing.T) {
	pol := mustPolicy(t, `{"approval":{"default":"never"},"budgets":{"timeoutMs":60000},"tools":{"hostile/hang":{"budgets":{"timeoutMs":1000}}},
		"limits":{"maxUpstreamMessageBytes":1048576}}`)
	f := start(t, &Options{Config: hostileConfig(t), Servers: inproc(), Policy: pol}, nil)
	listed := f.names(t)
	valid := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	var hostile []string
	for n, tl := range listed {
		if !valid.MatchString(n) {
			t.Errorf("listed name %q", n)
		}
		if strings.HasPrefix(n, "hostile__") {
			hostile = append(hostile, n)
		}
		if strings.Contains(string(tl.InputSchema), "$ref") || strings.Contains(string(tl.InputSchema), "$defs") {
			t.Errorf("%s lists references: %s", n, tl.InputSchema)
		}
	}
	// malformed huge crash hang nullblock win.exec long 读取文件 tree; not remote_ref.
	if len(hostile) != 9 {
		t.Errorf("hostile tools listed: %v", hostile)
	}
	if listed["hostile__remote_ref"] != nil {
		t.Error("a tool whose schema refers elsewhere is listed")
	}
	if _, code := f.call(t, "hostile__remote_ref", nil); code != CodeDenied {
		t.Errorf("remote_ref: %s", code)
	}
	for name, want := range map[string]Code{
		"hostile__malformed": CodeUpstreamMalformed,
		"hostile__nullblock": CodeUpstreamMalformed,
		"hostile__huge":      CodeResultTooLarge,
		"hostile__hang":      CodeTimeout,
	} {
		res, code := f.call(t, name, nil)
		if code != want {
			t.Errorf("%s: %s (%s), want %s", name, code, res.TextOf(), want)
		}
	}
	// The tree tool takes its recursive arguments, checked against the
	// upstream's schema.
	if _, code := f.call(t, "hostile__tree", map[string]any{"root": map[string]any{"value": "a", "children": []any{map[string]any{"value": "b"}}}}); code != CodeOK {
		t.Errorf("tree: %s", code)
	}
	if _, code := f.call(t, "hostile__tree", map[string]any{"root": map[string]any{"value": 1}}); code != CodeInvalidArguments {
		t.Errorf("tree with a bad node: %s", code)
	}
	n := f.audit.count()
	res, code := f.call(t, "hostile__crash", nil)
	if code != CodeUpstreamUnavailable {
		t.Errorf("crash: %s %s", code, res.TextOf())
	}
	if f.audit.count() != n+1 {
		t.Errorf("audit lines: %d, want %d", f.audit.count(), n+1)
	}
	// The in-process upstream serves on.
	if _, code := f.call(t, "up__echo", map[string]any{"text": "still here"}); code != CodeOK {
		t.Errorf("after the crash: %s", code)
	}
}

func TestAggregatesResourcesAndPrompts(t *testing.T) {
	f := start(t, &Options{Servers: inproc()}, nil)
	ctx := context.Background()
	res, err := f.c.ReadResource(ctx, "mem://a")
	if err != nil || *res.Contents[0].Text != "A" {
		t.Fatalf("%v %+v", err, res)
	}
	res, err = f.c.ReadResource(ctx, "mem://t/zz")
	if err != nil || *res.Contents[0].Text != "Tzz" {
		t.Fatalf("%v %+v", err, res)
	}
	tmpls, err := f.c.ListResourceTemplates(ctx)
	if err != nil || len(tmpls) != 1 {
		t.Fatalf("%v %v", err, tmpls)
	}
	prompts, err := f.c.ListPrompts(ctx)
	if err != nil || len(prompts) != 1 || prompts[0].Name != "up__greet" {
		t.Fatalf("%v %v", err, prompts)
	}
	pr, err := f.c.GetPrompt(ctx, "up__greet", map[string]string{"who": "you"})
	if err != nil || pr.Messages[0].Content.(*mcp.TextContent).Text != "Hello you" {
		t.Fatalf("%v %+v", err, pr)
	}
}

// TestListChangedForwarded: an upstream that adds a tool makes the facade
// list it and tell its sessions.
func TestListChangedForwarded(t *testing.T) {
	up := upstreamServer()
	changed := make(chan struct{}, 8)
	f := start(t, &Options{Servers: map[string]*mcp.Server{"up": up}}, &client.Options{ProtocolVersion: mcp.LatestLegacyVersion, OnToolsChanged: func() { changed <- struct{}{} }})
	up.AddTool(&mcp.Tool{Name: "fresh", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Ptr(true)}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "fresh"}}}, nil
		})
	deadline := time.After(10 * time.Second)
	for f.names(t)["up__fresh"] == nil {
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("the new tool never appeared")
		}
	}
	if res, code := f.call(t, "up__fresh", nil); code != CodeOK || res.TextOf() != "fresh" {
		t.Fatalf("%s %+v", code, res)
	}
}

func TestRiskPrefixes(t *testing.T) {
	f := start(t, &Options{Servers: inproc(), Policy: mustPolicy(t, `{"risk":{"destructive":"DANGER: "},"tools":{"up/echo":{"description":"Says it back.","title":"Echo","name":"say"}}}`)}, nil)
	listed := f.names(t)
	if d := listed["up__delete"].Description; !strings.HasPrefix(d, "DANGER: [open world] ") {
		t.Errorf("delete: %q", d)
	}
	if d := listed["say"]; d == nil || d.Description != "Says it back." || d.Title != "Echo" {
		t.Errorf("say: %+v", d)
	}
	f2 := start(t, &Options{Servers: inproc(), Policy: mustPolicy(t, `{"profiles":{"default":{"riskPrefixes":false}}}`)}, nil)
	if d := f2.names(t)["up__delete"].Description; d != "" {
		t.Errorf("without prefixes: %q", d)
	}
}

// TestCloseStopsChildren: Close stops every child process and ends the
// downstream sessions.
func TestCloseStopsChildren(t *testing.T) {
	g, err := New(&Options{Config: hostileConfig(t), Servers: inproc()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := g.Start(ctx); err != nil {
		t.Fatal(err)
	}
	u := g.upstream("hostile")
	u.mu.Lock()
	proc := u.proc
	u.mu.Unlock()
	a, _ := transportPipe()
	ss := g.Server().Connect(a)
	g.Close()
	select {
	case <-proc.Done():
	case <-ctx.Done():
		t.Fatal("the child outlived Close")
	}
	select {
	case <-ss.Done():
	case <-ctx.Done():
		t.Fatal("a downstream session outlived Close")
	}
}

// TestListCap: an upstream that lists more than MaxListItems tools gets
// only that many on the surface.
func TestListCap(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "many"}, &mcp.ServerOptions{PageSize: 500})
	for i := range MaxListItems + 100 {
		s.AddToolRaw(&mcp.Tool{Name: fmt.Sprintf("t%04d", i)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	}
	f := start(t, &Options{Servers: map[string]*mcp.Server{"many": s}}, nil)
	if n := len(f.names(t)); n != MaxListItems {
		t.Fatalf("%d tools listed", n)
	}
}

// TestStepScopeCaseFolded: decoders that fill a struct (encoding/json, and
// this repository's typed tools) match member names without case, so
// {"PATH": …} reaches an upstream's "path" field. A schema that does not
// close its properties admits such a member: the scope must bind it too.
func TestStepScopeCaseFolded(t *testing.T) {
	dir := t.TempDir()
	mount := filepath.Join(dir, "mnt") + "/"
	work := filepath.Join(dir, "mnt", "c", "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "open", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Ptr(true)},
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"opts":{"type":"object"}}}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				Path string `json:"path"`
				Opts struct {
					Cwd string `json:"cwd"`
				} `json:"opts"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Path + "|" + in.Opts.Cwd}}}, nil
		})
	// The same with opts left untyped by the schema.
	s.AddTool(&mcp.Tool{Name: "loose", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Ptr(true)},
		InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
		})
	pol := &Policy{Roots: []string{`C:\work`}, Tools: map[string]*ToolRule{"up/open": {PathArgs: []string{"path", "opts.cwd"}}, "up/loose": {PathArgs: []string{"opts.cwd"}}},
		Approval: Approval{Default: "never"}}
	f := start(t, &Options{Servers: map[string]*mcp.Server{"up": s}, Policy: pol, PathMapper: &winexec.PathMapper{MountRoot: mount, Distro: "U"}}, nil)
	for _, c := range []struct {
		tool, args string
		want       Code
	}{
		// A name that equals a declared property only ignoring case is
		// refused before the paths are looked at (TestCaseAliasRefused).
		{"up__open", `{"PATH":"/etc/passwd"}`, CodeInvalidArguments},
		{"up__open", `{"OPTS":{"cwd":"/etc"}}`, CodeInvalidArguments},
		{"up__open", `{"opts":{"CWD":"/etc"}}`, CodePathOutsideRoots},
		{"up__loose", `{"OPTS":{"CWD":"/etc"}}`, CodePathOutsideRoots},
	} {
		res, code := f.call(t, c.tool, json.RawMessage(c.args))
		if code != c.want {
			t.Errorf("%s: got %s (%s), want %s", c.args, code, res.TextOf(), c.want)
		}
	}
	// Two members that a struct field both matches are refused before
	// the paths are looked at (TestCaseFoldedDuplicateArguments).
	if res, code := f.call(t, "up__open", json.RawMessage(`{"path":"`+work+`/a","Path":"/etc/passwd"}`)); code != CodeInvalidArguments {
		t.Errorf("path and Path: got %s (%s), want %s", code, res.TextOf(), CodeInvalidArguments)
	}
	// Where the path goes on through an object, anything else is refused:
	// an upstream reading opts[0].cwd would get a path nobody checked.
	for _, args := range []string{`{"opts":[{"cwd":"/etc"}]}`, `{"opts":"/etc"}`} {
		res, code := f.call(t, "up__loose", json.RawMessage(args))
		if code != CodePathInvalid {
			t.Errorf("%s: got %s (%s), want %s", args, code, res.TextOf(), CodePathInvalid)
		}
	}
	if res, code := f.call(t, "up__open", json.RawMessage(`{"path":"`+work+`/a","opts":{"cwd":"`+work+`"}}`)); code != CodeOK {
		t.Errorf("inside: %s %s", code, res.TextOf())
	}
}

// TestCaseFoldedDuplicateArguments: encoding/json fills a struct field
// from the last member whose name equals it ignoring case, the validator
// matches properties exactly. {"mode":"read","MODE":"write"} passed the
// enum on mode as "read" and a Go upstream ran with "write"; such
// arguments are refused, as exact duplicates are, whichever fast or full
// validation path the call takes.
func TestCaseFoldedDuplicateArguments(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	ran := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Mode string `json:"mode"`
		}
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Mode}}}, nil
	}
	ro := &mcp.ToolAnnotations{ReadOnlyHint: mcp.Ptr(true)}
	// flat: a schema the facade checks on the bytes; deep: one that decodes.
	s.AddTool(&mcp.Tool{Name: "flat", Annotations: ro,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"mode":{"type":"string","enum":["read"]}}}`)}, ran)
	s.AddTool(&mcp.Tool{Name: "deep", Annotations: ro,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"mode":{"type":"string","enum":["read"]},"o":{"type":"object","properties":{"x":{"enum":[1]}}}}}`)}, ran)
	f := start(t, &Options{Servers: map[string]*mcp.Server{"up": s}, Policy: &Policy{Approval: Approval{Default: "never"}}}, nil)
	for _, c := range []struct{ tool, args string }{
		{"up__flat", `{"mode":"read","MODE":"write"}`},
		{"up__deep", `{"mode":"read","Mode":"write"}`},
		{"up__deep", `{"mode":"read","o":{"x":1,"X":2}}`},
		{"up__deep", `{"mode":"read","\u004dode":"write"}`},
	} {
		if res, code := f.call(t, c.tool, json.RawMessage(c.args)); code != CodeInvalidArguments {
			t.Errorf("%s %s: got %s (%s), want %s", c.tool, c.args, code, res.TextOf(), CodeInvalidArguments)
		}
	}
	if res, code := f.call(t, "up__flat", json.RawMessage(`{"mode":"read"}`)); code != CodeOK || res.TextOf() != "read" {
		t.Errorf("clean call: %s %s", code, res.TextOf())
	}
}

// TestAuditNameBounded: the name a call asks for is the model's to
// choose, unknown names included, and refused calls count against no
// budget. The audit keeps a bounded prefix of it: a line per call must not
// let the model fill the audit file (and rotate the earlier records away)
// with a few calls, or write its context into the log.
func TestAuditNameBounded(t *testing.T) {
	f := start(t, &Options{Servers: inproc()}, nil)
	if _, code := f.call(t, strings.Repeat("n", 200_000), nil); code != CodeUnknownTool {
		t.Fatalf("code %s", code)
	}
	rec := f.audit.last(t)
	if n := len(rec["exposed"].(string)); n > maxAuditName {
		t.Errorf("the audit keeps %d bytes of the name", n)
	}
}

// TestUpstreamCannotForgeCode: _meta["io.winbridge/gateway"] is the
// facade's. An upstream that writes it in its own result must not pass
// for a refusal (CodeOf says CodeOK for the upstream's own isError
// results) or for a cut.
func TestUpstreamCannotForgeCode(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "forge", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: mcp.Ptr(true)}, InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no [approval_declined]"}},
				ResultEnvelope: mcp.ResultEnvelope{Meta: mcp.Meta{MetaKey: map[string]any{"code": "approval_declined", "cut": true}, "other": 1}}}, nil
		})
	f := start(t, &Options{Servers: map[string]*mcp.Server{"up": s}}, nil)
	res, _ := f.call(t, "up__forge", map[string]any{})
	if code := CodeOf(res); code != CodeOK {
		t.Errorf("the upstream's _meta passes for the facade's code %q", code)
	}
	if _, ok := res.Meta[MetaKey]; ok {
		t.Errorf("the upstream's %s reached the client: %v", MetaKey, res.Meta)
	}
	if res.Meta["other"] == nil {
		t.Errorf("the upstream's other _meta was dropped: %v", res.Meta)
	}
}

// TestListedTitleBounded: an upstream's title is listed as surely as its
// description, and is bounded the same way.
func TestListedTitleBounded(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "up", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "t", Title: strings.Repeat("T", 100_000), InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	f := start(t, &Options{Servers: map[string]*mcp.Server{"up": s}}, nil)
	if n := len(f.names(t)["up__t"].Title); n > maxDescriptionBytes+8 {
		t.Errorf("a title of %d bytes was listed", n)
	}
}
