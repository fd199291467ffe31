package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// The environment of a helper process: the token file it hammers, its
// name and its rounds.
const (
	envStorePath   = "WINBRIDGE_OAUTH_TEST_STORE"
	envStoreWorker = "WINBRIDGE_OAUTH_TEST_WORKER"
	envStoreRounds = "WINBRIDGE_OAUTH_TEST_ROUNDS"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(envStorePath); path != "" {
		if err := storeWorker(path, os.Getenv(envStoreWorker), os.Getenv(envStoreRounds)); err != nil {
			fmt.Fprintln(os.Stderr, "store worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// storeWorker is one of the processes sharing a token file: each round
// it increments a counter kept in one entry (a read-modify-write that a
// lost update shows), adds an entry of its own and reads the file back.
func storeWorker(path, name, rounds string) error {
	n, err := strconv.Atoi(rounds)
	if err != nil {
		return err
	}
	ctx := context.Background()
	s := &oauth.FileStore{Path: path}
	for i := range n {
		err := s.Update(ctx, "counter", func(cur *oauth.Credentials) (*oauth.Credentials, error) {
			v := 0
			if cur != nil {
				v, _ = strconv.Atoi(cur.ClientID)
			}
			return &oauth.Credentials{Issuer: "https://as.example", ClientID: strconv.Itoa(v + 1)}, nil
		})
		if err != nil {
			return err
		}
		if err := s.Save(ctx, name+"-"+strconv.Itoa(i), &oauth.Credentials{Issuer: "https://as.example", Token: &oauth.Token{AccessToken: "at"}}); err != nil {
			return err
		}
		if _, err := s.Load(ctx, "counter"); err != nil {
			return err
		}
	}
	return nil
}

// Two processes sharing one token file lose none of each other's
// changes and never read a torn file; the file stays 0600 and no
// temporary file is left.
func TestFileStoreAcrossProcesses(t *testing.T) {
	if runtime.GOOS == "js" || runtime.GOOS == "wasip1" || runtime.GOOS == "plan9" {
		t.Skip("no file locks")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "tokens.json")
	const rounds = 60
	workers := []string{"a", "b"}
	var cmds []*exec.Cmd
	for _, w := range workers {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), envStorePath+"="+path, envStoreWorker+"="+w, envStoreRounds+"="+strconv.Itoa(rounds))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	// This process reads while they write: never a torn file.
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		s := &oauth.FileStore{Path: path}
		for {
			select {
			case <-done:
				return
			default:
			}
			if _, err := s.Load(context.Background(), "counter"); err != nil {
				t.Errorf("read while two processes write: %v", err)
				return
			}
		}
	})
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("worker: %v", err)
		}
	}
	close(done)
	wg.Wait()

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var all map[string]oauth.Credentials
	if err := json.Unmarshal(data, &all); err != nil {
		t.Fatal(err)
	}
	if got := all["counter"].ClientID; got != strconv.Itoa(len(workers)*rounds) {
		t.Errorf("counter %s after %d increments: updates were lost", got, len(workers)*rounds)
	}
	for _, w := range workers {
		for i := range rounds {
			if _, ok := all[w+"-"+strconv.Itoa(i)]; !ok {
				t.Fatalf("entry %s-%d lost", w, i)
			}
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".tokens-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A symbolic link planted at the token path (or at its lock file's) is
// not followed: the file it points to is neither read nor overwritten,
// and the store says why.
func TestFileStoreRefusesSymlinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need a privilege")
	}
	ctx := context.Background()
	creds := &oauth.Credentials{Issuer: "https://as.example", Token: &oauth.Token{AccessToken: "at"}}
	for _, at := range []string{"tokens.json", "tokens.json.lock"} {
		t.Run(at, func(t *testing.T) {
			dir := t.TempDir()
			victim := filepath.Join(dir, "victim")
			if err := os.WriteFile(victim, []byte(`{"precious": {}}`), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(victim, filepath.Join(dir, at)); err != nil {
				t.Fatal(err)
			}
			s := &oauth.FileStore{Path: filepath.Join(dir, "tokens.json")}
			if err := s.Save(ctx, "https://mcp.example/mcp", creds); err == nil {
				t.Error("Save through a symbolic link succeeded")
			}
			if _, err := s.Load(ctx, "precious"); err == nil {
				t.Error("Load through a symbolic link succeeded")
			}
			if b, _ := os.ReadFile(victim); string(b) != `{"precious": {}}` {
				t.Errorf("the link's target was changed: %q", b)
			}
		})
	}
}

// A wait for the lock another process holds ends with its context, or
// after LockWait with ErrStoreLocked, not never.
func TestFileStoreLockWaitIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tokens.json")
	holder := &oauth.FileStore{Path: path}
	held, release := make(chan struct{}), make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		errc <- holder.Update(context.Background(), "r", func(*oauth.Credentials) (*oauth.Credentials, error) {
			close(held)
			<-release
			return nil, nil
		})
	}()
	<-held
	other := &oauth.FileStore{Path: path, LockWait: 50 * time.Millisecond}
	if _, err := other.Load(context.Background(), "r"); !errors.Is(err, oauth.ErrStoreLocked) {
		t.Errorf("Load while locked: %v, want ErrStoreLocked", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (&oauth.FileStore{Path: path}).Load(ctx, "r"); !errors.Is(err, context.Canceled) {
		t.Errorf("Load while locked, context canceled: %v", err)
	}
	close(release)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// Two programs sharing a token file (two bridges, say), whose token has
// expired, refresh it once between them: the second takes the token the
// first stored instead of spending the refresh token again, which a
// server that rotates refresh tokens refuses (and here, as servers that
// detect reuse do, answers by revoking the whole family, logging the
// user out).
func TestSharedFileStoreRefreshesOnce(t *testing.T) {
	var (
		mu        sync.Mutex
		at, rt    = "at0", "rt0"
		refresh   atomic.Int32
		reused    atomic.Int32
		base      string
		srvMux    = http.NewServeMux()
		writeJSON = func(w http.ResponseWriter, v any) {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(v)
		}
	)
	srvMux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ok := at != "" && r.Header.Get("Authorization") == "Bearer "+at
		mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+base+`/prm"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Write([]byte("ok"))
	})
	srvMux.HandleFunc("/prm", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base}})
	})
	srvMux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"code_challenge_methods_supported": []string{"S256"}})
	})
	srvMux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		mu.Lock()
		defer mu.Unlock()
		if r.PostForm.Get("grant_type") != "refresh_token" || rt == "" || r.PostForm.Get("refresh_token") != rt {
			reused.Add(1)
			at, rt = "", "" // reuse detected: the family is revoked
			w.WriteHeader(http.StatusBadRequest)
			writeJSON(w, map[string]any{"error": "invalid_grant"})
			return
		}
		n := refresh.Add(1)
		at, rt = "at"+strconv.Itoa(int(n)), "rt"+strconv.Itoa(int(n))
		writeJSON(w, map[string]any{"access_token": at, "refresh_token": rt, "token_type": "Bearer", "expires_in": 3600})
	})
	ts := httptest.NewServer(srvMux)
	defer ts.Close()
	base = ts.URL

	path := filepath.Join(t.TempDir(), "tokens.json")
	ctx := context.Background()
	err := (&oauth.FileStore{Path: path}).Save(ctx, base+"/mcp", &oauth.Credentials{Issuer: base, ClientID: "cid",
		Token: &oauth.Token{AccessToken: "at0", RefreshToken: "rt0", TokenType: "Bearer", Expiry: time.Now().Add(-time.Hour)}})
	if err != nil {
		t.Fatal(err)
	}
	// Two Transports, each with its own FileStore on the file: as two
	// processes, they share nothing but the file and its lock.
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 2 {
		c := &http.Client{Transport: &oauth.Transport{Config: &oauth.Config{Store: &oauth.FileStore{Path: path}}}}
		wg.Go(func() {
			<-start
			resp, err := c.Get(base + "/mcp")
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("status %d", resp.StatusCode)
			}
		})
	}
	close(start)
	wg.Wait()
	if refresh.Load() != 1 || reused.Load() != 0 {
		t.Errorf("%d refreshes, %d refresh tokens spent twice; want 1 and 0", refresh.Load(), reused.Load())
	}
}
