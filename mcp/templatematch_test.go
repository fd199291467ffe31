package mcp

import (
	"context"
	"testing"
)

// TestURITemplateMatcher: the matcher says what a Server's lookup does.
func TestURITemplateMatcher(t *testing.T) {
	for _, c := range []struct {
		tmpl, uri string
		want      bool
	}{
		{"file:///home/{x}", "file:///home/a", true},
		{"file:///home/{x}", "file:///home/a/b", false}, // {x} takes no '/'
		{"file:///home/{+p}", "file:///home/a/b", true},
		{"file:///home/{x}", "file:///other/a", false},
		{"mem://{a}#{#f}", "mem://x##y", true},
	} {
		m, err := URITemplateMatcher(c.tmpl)
		if err != nil {
			t.Fatal(err)
		}
		if got := m(c.uri); got != c.want {
			t.Errorf("%s ~ %s: %v, want %v", c.tmpl, c.uri, got, c.want)
		}
		s := NewServer(&Implementation{Name: "s"}, nil)
		s.AddResourceTemplate(&ResourceTemplate{URITemplate: c.tmpl, Name: "t"}, func(_ context.Context, _ *ReadResourceRequest) (*ReadResourceResult, error) { return nil, nil })
		if _, _, found := s.lookupResource(c.uri); found != c.want {
			t.Errorf("%s ~ %s: the server's lookup says %v", c.tmpl, c.uri, found)
		}
	}
	if _, err := URITemplateMatcher("x{y"); err == nil {
		t.Error("an unsupported template compiled")
	}
}

// FuzzURITemplateMatcher: for any template and URI, the matcher and a
// Server's lookup agree (a gateway decides with the one which of its
// upstreams the other would ask).
func FuzzURITemplateMatcher(f *testing.F) {
	f.Add("file:///home/{x}", "file:///home/a/b")
	f.Add("file:///{+p}", "file:///a?b#c")
	f.Add("mem://{a}{#f}", "mem://x#y")
	f.Add("a{b}c{+d}", "a/c")
	f.Fuzz(func(t *testing.T, tmpl, uri string) {
		m, err := URITemplateMatcher(tmpl)
		if err != nil || tmpl == "" {
			return
		}
		s := NewServer(&Implementation{Name: "s"}, nil)
		s.AddResourceTemplate(&ResourceTemplate{URITemplate: tmpl, Name: "t"}, func(context.Context, *ReadResourceRequest) (*ReadResourceResult, error) { return nil, nil })
		if _, _, found := s.lookupResource(uri); found != m(uri) {
			t.Fatalf("%q ~ %q: matcher %v, lookup %v", tmpl, uri, m(uri), found)
		}
	})
}
