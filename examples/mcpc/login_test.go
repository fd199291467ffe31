package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/internal/oauthtest"
	"github.com/winbridge/winbridge/mcp"
	"github.com/winbridge/winbridge/mcp/mcphttp"
	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// mcpc login prints the URL to open, takes the redirect on loopback and
// stores the credentials 0600; its output names no token.
func TestLogin(t *testing.T) {
	as := oauthtest.New(t, "mcp:tools")
	srv := mcp.NewServer(&mcp.Implementation{Name: "p", Version: "1"}, nil)
	h := mcphttp.NewHandler(srv, nil)
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	defer ts.Close()
	defer h.Shutdown(context.Background())
	resource := ts.URL + "/mcp"
	mux.Handle(mcphttp.ResourceMetadataPath(resource), mcphttp.ResourceMetadataHandler(&oauth.ResourceMetadata{Resource: resource, AuthorizationServers: []string{as.URL}}))
	mux.Handle("/mcp", mcphttp.RequireAuth(mcphttp.AuthOptions{Verifier: as.Verifier(resource), ResourceMetadataURL: ts.URL + mcphttp.ResourceMetadataPath(resource)}, h))

	// The "browser": open the printed URL and follow the redirects, the
	// last of which is mcpc's loopback callback.
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	browsed := make(chan error, 1)
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			stderr.WriteString(line + "\n")
			if u := strings.TrimSpace(line); strings.HasPrefix(u, as.URL+"/authorize?") {
				resp, err := http.Get(u)
				if err == nil {
					resp.Body.Close()
				}
				browsed <- err
			}
		}
	}()
	store := filepath.Join(t.TempDir(), "tokens.json")
	var stdout bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code := run(ctx, []string{"login", "--store", store, resource}, &stdout, pw)
	pw.Close()
	<-scanned
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
	}
	if err := <-browsed; err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || out["issuer"] != as.URL {
		t.Fatalf("stdout %s: %v", stdout.String(), err)
	}
	fi, err := os.Stat(store)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("store: %v, %v", fi, err)
	}
	for _, s := range as.Secrets() {
		if strings.Contains(stdout.String(), s) || strings.Contains(stderr.String(), s) {
			t.Errorf("secret %.8s... printed", s)
		}
	}
	// What login stored is what a later run uses: no second authorization.
	c, err := (&oauth.FileStore{Path: store}).Load(ctx, resource)
	if err != nil || c == nil || c.Token == nil {
		t.Fatalf("stored: %v, %v", c, err)
	}
}
