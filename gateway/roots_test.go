package gateway

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/mcp"
)

func fileURI(p string) string { return (&url.URL{Scheme: "file", Path: p}).String() }

// TestRootsNarrowedToPolicy: the policy's roots say where path arguments
// may go; an upstream that asked roots/list got every root of the client,
// the user's home as likely as the project, and so learnt of directories
// the policy keeps it out of. With roots in the policy, the upstream gets
// the client's roots inside them, and a policy root for a client root
// that holds one; nothing outside.
func TestRootsNarrowedToPolicy(t *testing.T) {
	dir := t.TempDir()
	project := filepath.Join(dir, "project")
	if err := os.MkdirAll(filepath.Join(project, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	clientRoots := []*mcp.Root{
		{URI: fileURI(dir), Name: "home"},                             // holds the policy's root
		{URI: fileURI(filepath.Join(project, "sub")), Name: "sub"},    // inside it
		{URI: fileURI(filepath.Join(dir, "secret-plans")), Name: "x"}, // outside
		{URI: "https://example.com/repo", Name: "web"},                // not a path
	}
	opts := &client.Options{ProtocolVersion: mcp.LatestLegacyVersion,
		OnRoots: func(context.Context) (*mcp.ListRootsResult, error) {
			return &mcp.ListRootsResult{Roots: clientRoots}, nil
		},
	}
	b, _ := json.Marshal(map[string]any{"roots": []string{project}})
	f := start(t, &Options{Config: askerConfig(t), Policy: mustPolicy(t, string(b))}, opts)
	res, code := f.call(t, "ask__roots_all", nil)
	resolved, err := filepath.EvalSymlinks(project) // the policy's root as the facade resolved it
	if err != nil {
		t.Fatal(err)
	}
	want := fileURI(resolved) + " " + fileURI(filepath.Join(project, "sub"))
	if code != CodeOK || res.TextOf() != want {
		t.Errorf("the upstream got roots %q, want %q", res.TextOf(), want)
	}

	// Without roots in the policy, the client's roots pass as they are.
	g := start(t, &Options{Config: askerConfig(t)}, opts)
	if res, _ := g.call(t, "ask__roots_all", nil); res.TextOf() != fileURI(dir)+" "+fileURI(filepath.Join(project, "sub"))+" "+fileURI(filepath.Join(dir, "secret-plans"))+" https://example.com/repo" {
		t.Errorf("without policy roots: %q", res.TextOf())
	}
}

// TestNarrowRootsDrive: a client on Windows names its roots as drive URIs;
// they are judged in WSL form, as path arguments are.
func TestNarrowRootsDrive(t *testing.T) {
	s, err := newScope([]string{`C:\work`}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := s.narrowRoots([]*mcp.Root{{URI: "file:///C:/work/app"}, {URI: "file:///c:/"}, {URI: "file:///D:/work"}, {URI: "file://host/share/x"}})
	var uris []string
	for _, r := range got {
		uris = append(uris, r.URI)
	}
	if want := []string{"file:///C:/work/app", "file:///mnt/c/work"}; !slices.Equal(uris, want) {
		t.Errorf("got %q, want %q", uris, want)
	}
}

// FuzzNarrowRoots: whatever the client's roots, every root an upstream is
// given lies inside a policy root.
func FuzzNarrowRoots(f *testing.F) {
	for _, u := range []string{"file:///C:/work/app", "file:///", "file:///mnt/c/work/../x", "file:///r/a/..%2f..", "file://localhost/r", "file:///r/a\\..\\..", "https://x/r"} {
		f.Add(u)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		s, err := newScope([]string{"/r", `C:\work`}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range s.narrowRoots([]*mcp.Root{{URI: uri}}) {
			u, err := url.Parse(r.URI)
			if err != nil {
				t.Fatalf("%q: gave %q, which does not parse", uri, r.URI)
			}
			p := u.Path
			if driveURIPath.MatchString(p) {
				p = p[1:]
			}
			if err := s.check(p); err != nil {
				t.Fatalf("%q: gave %q, outside the roots: %v", uri, r.URI, err)
			}
		}
	})
}
