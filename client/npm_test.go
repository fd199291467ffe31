//go:build unix

package client_test

import (
	"context"
	"encoding/pem"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
	"github.com/winbridge/winbridge/internal/peertest"
)

// npm's error output for each cause, as npm 10 and 11 print it (the code
// line is what is read; the rest is context). This is a double of npm's
// documented output, used where a real failure cannot be produced here.
var npmOutputs = map[string]struct {
	stderr string
	want   error
	words  []string
}{
	"certificate": {
		stderr: "npm error code SELF_SIGNED_CERT_IN_CHAIN\nnpm error errno SELF_SIGNED_CERT_IN_CHAIN\n" +
			"npm error request to https://registry.npmjs.org/@modelcontextprotocol%2fserver-everything failed, reason: self-signed certificate in certificate chain\n" +
			"npm error A complete log of this run can be found in: /home/u/.npm/_logs/debug-0.log\n",
		want: client.ErrNpmCertificate, words: []string{"SELF_SIGNED_CERT_IN_CHAIN", "NODE_EXTRA_CA_CERTS"},
	},
	"certificate, old npm": {
		stderr: "npm ERR! code UNABLE_TO_GET_ISSUER_CERT_LOCALLY\nnpm ERR! errno UNABLE_TO_GET_ISSUER_CERT_LOCALLY\n" +
			"npm ERR! request to https://registry.npmjs.org/x failed, reason: unable to get local issuer certificate\n",
		want: client.ErrNpmCertificate, words: []string{"UNABLE_TO_GET_ISSUER_CERT_LOCALLY", "NODE_EXTRA_CA_CERTS"},
	},
	"proxy": {
		stderr: "npm error code ECONNREFUSED\nnpm error syscall connect\nnpm error errno ECONNREFUSED\n" +
			"npm error FetchError: request to https://registry.npmjs.org/x failed, reason: connect ECONNREFUSED 10.0.0.1:3128\n" +
			"npm error If you are behind a proxy, please make sure that the 'proxy' config is set properly.  See: 'npm help config'\n",
		want: client.ErrNpmNetwork, words: []string{"ECONNREFUSED", "HTTPS_PROXY"},
	},
	"dns": {
		stderr: "npm error code ENOTFOUND\nnpm error syscall getaddrinfo\nnpm error network request to https://registry.npmjs.org/x failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org\n",
		want:   client.ErrNpmNetwork, words: []string{"ENOTFOUND", "HTTPS_PROXY"},
	},
	"not found": {
		stderr: "npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/@nope%2fnope - Not found\n" +
			"npm error 404\nnpm error 404  '@nope/nope@*' is not in this registry.\n",
		want: client.ErrNpmNotFound, words: []string{"E404", "package name"},
	},
	"auth": {
		stderr: "npm error code E401\nnpm error 401 Unauthorized - GET https://npm.example/@corp%2fx - authentication token not provided\n",
		want:   client.ErrNpmAuth, words: []string{"E401", "token"},
	},
}

// fakeNpx puts an npx on PATH that prints stderr and exits 1, as npm does
// when it cannot fetch the package.
func fakeNpx(t *testing.T, stderr string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "stderr.txt"), []byte(stderr), 0o600); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\ncat \"$(dirname \"$0\")/stderr.txt\" >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(dir, "npx"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func launchNpx(t *testing.T, pkg string) error {
	t.Helper()
	cmd, err := client.Npx(pkg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := client.Launch(ctx, cmd, &client.ProcessOptions{Logger: quietLog})
	if err == nil {
		p.Close()
		t.Fatal("Launch succeeded")
	}
	return err
}

func TestNpxFailureNamesTheCause(t *testing.T) {
	for name, tc := range npmOutputs {
		t.Run(name, func(t *testing.T) {
			fakeNpx(t, tc.stderr)
			err := launchNpx(t, "@modelcontextprotocol/server-everything")
			var exit *client.ExitError
			if !errors.Is(err, tc.want) || !errors.As(err, &exit) || exit.Code != 1 {
				t.Fatalf("error %v: want %v and the exit status", err, tc.want)
			}
			first, _, _ := strings.Cut(err.Error(), "\n")
			for _, w := range tc.words {
				if !strings.Contains(first, w) {
					t.Errorf("the first line %q does not name %q", first, w)
				}
			}
		})
	}
	t.Run("unknown", func(t *testing.T) {
		fakeNpx(t, "npm error code EBADENGINE\nnpm error engine Unsupported engine\n")
		err := launchNpx(t, "x")
		for _, e := range []error{client.ErrNpmCertificate, client.ErrNpmNetwork, client.ErrNpmNotFound, client.ErrNpmAuth} {
			if errors.Is(err, e) {
				t.Errorf("%v: claims %v", err, e)
			}
		}
	})
	t.Run("proxy set", func(t *testing.T) {
		fakeNpx(t, npmOutputs["proxy"].stderr)
		t.Setenv("HTTPS_PROXY", "http://user:pw@proxy.example:3128")
		err := launchNpx(t, "x")
		first, _, _ := strings.Cut(err.Error(), "\n")
		if !strings.Contains(first, "check the proxy") || strings.Contains(first, "user:pw") {
			t.Errorf("with a proxy set: %q", first)
		}
	})
}

// The same causes from the real npx, against a local registry: one that
// refuses connections, one that answers 404, and one whose certificate is
// self-signed, which a CA file in npm_config_cafile (inherited by
// default) then makes trusted. (npm 11 does not read NODE_EXTRA_CA_CERTS
// for the registry; npx's node child and most servers do.)
func TestRealNpxFailureNamesTheCause(t *testing.T) {
	peertest.LookPath(t, "npx")
	npmEnv := func(t *testing.T, registry string) {
		t.Setenv("npm_config_registry", registry)
		for _, k := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy", "npm_config_proxy", "npm_config_https_proxy", "NODE_EXTRA_CA_CERTS"} {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	const pkg = "@winbridge-test/no-such-package@1.0.0"
	t.Run("refused", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close() // nothing listens there now
		npmEnv(t, "http://"+addr+"/")
		err = launchNpxEnv(t, pkg)
		if !errors.Is(err, client.ErrNpmNetwork) {
			t.Fatalf("%v: want ErrNpmNetwork", err)
		}
	})
	notFound := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":"Not found"}`))
	})
	t.Run("not found", func(t *testing.T) {
		srv := httptest.NewServer(notFound)
		defer srv.Close()
		npmEnv(t, srv.URL+"/")
		if err := launchNpxEnv(t, pkg); !errors.Is(err, client.ErrNpmNotFound) {
			t.Fatalf("%v: want ErrNpmNotFound", err)
		}
	})
	t.Run("certificate", func(t *testing.T) {
		srv := httptest.NewTLSServer(notFound)
		defer srv.Close()
		npmEnv(t, srv.URL+"/")
		if err := launchNpxEnv(t, pkg); !errors.Is(err, client.ErrNpmCertificate) || !strings.Contains(err.Error(), "NODE_EXTRA_CA_CERTS") {
			t.Fatalf("%v: want ErrNpmCertificate naming NODE_EXTRA_CA_CERTS", err)
		}
		ca := filepath.Join(t.TempDir(), "ca.pem")
		b := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
		if err := os.WriteFile(ca, b, 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv("npm_config_cafile", ca)
		if err := launchNpxEnv(t, pkg); !errors.Is(err, client.ErrNpmNotFound) {
			t.Fatalf("with npm_config_cafile inherited: %v; want ErrNpmNotFound (the registry reached)", err)
		}
	})
}

// launchNpxEnv starts npx with a fresh cache and no retries (settings
// that are not inherited, so they go in Command.Env).
func launchNpxEnv(t *testing.T, pkg string) error {
	t.Helper()
	cmd, err := client.Npx(pkg)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = []string{"npm_config_cache=" + t.TempDir(), "npm_config_fetch_retries=0", "npm_config_update_notifier=false", "npm_config_audit=false"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := client.Launch(ctx, cmd, &client.ProcessOptions{Logger: quietLog})
	if err == nil {
		p.Close()
		t.Fatal("Launch succeeded")
	}
	t.Logf("%v", err)
	return err
}
