package mcphttp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/transport"
)

// A server that redirects the client's POST to another origin does not
// get the client's headers (an API key in ClientOptions.Header, the
// session) sent there: net/http forwards every header but Authorization
// and cookies along a redirect, to any host and from https to http. The
// framer's own client follows redirects within the origin only; another
// is the call's error, naming the status.
func TestRedirectToAnotherOriginIsNotFollowed(t *testing.T) {
	var leaked atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "" {
			leaked.Add(1)
		}
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer other.Close()
	var same atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/elsewhere", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	})
	h := mcphttp.NewHandler(mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil), nil)
	mux.Handle("/mcp", h)
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		same.Add(1)
		http.Redirect(w, r, "/mcp", http.StatusPermanentRedirect)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx := context.Background()
	opts := &mcphttp.ClientOptions{Header: http.Header{"X-Api-Key": {"secret"}}, NoListen: true}

	// Within the origin, a redirect is followed and the message resent.
	stream, err := mcphttp.NewStream(ctx, srv.URL+"/old", opts)
	if err != nil {
		t.Fatal(err)
	}
	conn := transport.NewConn(stream, nil, nil)
	err = conn.Call(ctx, "initialize", &mcp.InitializeParams{ProtocolVersion: mcp.LatestLegacyVersion}, nil)
	conn.Close()
	if err != nil || same.Load() == 0 {
		t.Fatalf("a redirect within the origin: %v (%d redirects)", err, same.Load())
	}

	stream, err = mcphttp.NewStream(ctx, srv.URL+"/elsewhere", opts)
	if err != nil {
		t.Fatal(err)
	}
	conn = transport.NewConn(stream, nil, nil)
	defer conn.Close()
	err = conn.Call(ctx, "initialize", &mcp.InitializeParams{ProtocolVersion: mcp.LatestLegacyVersion}, nil)
	if err == nil || !strings.Contains(err.Error(), "307") {
		t.Errorf("a redirect to another origin: %v, want an error naming the 307", err)
	}
	if n := leaked.Load(); n != 0 {
		t.Errorf("the API key reached the other origin %d times", n)
	}
}

// TestSameOriginRedirectRule: which redirects the rule follows, judged on
// the URLs alone. An upgrade from http to https on the same host name is
// followed (what a server behind TLS answers a plain request with); a
// downgrade, another host and another port are not.
func TestSameOriginRedirectRule(t *testing.T) {
	for _, c := range []struct {
		from, to string
		follow   bool
	}{
		{"http://h.example/mcp", "http://h.example/v2/mcp", true},
		{"http://h.example/mcp", "http://H.EXAMPLE:80/mcp", true},
		{"https://h.example/mcp", "https://h.example:443/x", true},
		{"http://h.example/mcp", "https://h.example/mcp", true},
		{"http://h.example:8080/mcp", "https://h.example:8443/mcp", true},
		{"https://h.example/mcp", "http://h.example/mcp", false},
		{"http://h.example/mcp", "http://other.example/mcp", false},
		{"http://h.example/mcp", "https://other.example/mcp", false},
		{"http://h.example/mcp", "http://h.example:8080/mcp", false},
		{"https://h.example/mcp", "https://h.example.evil/mcp", false},
	} {
		first, err := http.NewRequest(http.MethodPost, c.from, nil)
		if err != nil {
			t.Fatal(err)
		}
		next, err := http.NewRequest(http.MethodPost, c.to, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = mcphttp.SameOriginRedirect(next, []*http.Request{first})
		if followed := err == nil; followed != c.follow {
			t.Errorf("%s -> %s: followed %v (%v), want %v", c.from, c.to, followed, err, c.follow)
		}
	}
}
