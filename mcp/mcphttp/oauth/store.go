package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Credentials is what a client keeps for one protected resource: the
// authorization server that issued them, the client's registration there
// and the token. Like Token, it redacts itself when formatted or logged.
type Credentials struct {
	Issuer       string `json:"issuer"`
	ClientID     string `json:"client_id,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
	AuthMethod   string `json:"token_endpoint_auth_method,omitempty"`
	Token        *Token `json:"token,omitempty"`
	// Scope is every scope asked for so far: a step-up asks for their
	// union with the new challenge's.
	Scope string `json:"scope,omitempty"`
}

// Format implements fmt.Formatter: every verb prints a redacted form.
func (c Credentials) Format(f fmt.State, _ rune) {
	fmt.Fprintf(f, "oauth.Credentials{issuer: %s, client_id: %s, secret and token redacted}", c.Issuer, c.ClientID)
}

// LogValue implements slog.LogValuer.
func (c Credentials) LogValue() slog.Value {
	return slog.GroupValue(slog.String("issuer", c.Issuer), slog.String("client_id", c.ClientID))
}

// TokenStore keeps Credentials by resource (the MCP endpoint's URL).
// Load returns nil, nil when it has none. Implementations must be safe
// for concurrent use.
type TokenStore interface {
	Load(ctx context.Context, resource string) (*Credentials, error)
	Save(ctx context.Context, resource string, c *Credentials) error
}

// MemoryStore is a TokenStore in memory, lost when the process ends. The
// zero value is ready to use.
type MemoryStore struct {
	mu sync.Mutex
	m  map[string]Credentials
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{} }

// Load implements TokenStore.
func (s *MemoryStore) Load(_ context.Context, resource string) (*Credentials, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.m[resource]
	if !ok {
		return nil, nil
	}
	return clone(&c), nil
}

// Save implements TokenStore.
func (s *MemoryStore) Save(_ context.Context, resource string, c *Credentials) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]Credentials{}
	}
	s.m[resource] = *clone(c)
	return nil
}

func clone(c *Credentials) *Credentials {
	if c == nil {
		return nil
	}
	out := *c
	if c.Token != nil {
		t := *c.Token
		out.Token = &t
	}
	return &out
}

// An UpdatingStore is a TokenStore that other processes may share. The
// Transport refreshes a token inside Update: it re-reads the stored
// credentials there, and uses those another process has just refreshed
// instead of spending the refresh token a second time (a server that
// rotates refresh tokens refuses the old one, and may revoke the new one
// with it).
type UpdatingStore interface {
	TokenStore
	// Update calls fn with the credentials stored for resource (nil:
	// none) and stores what it returns, with no other Update, Load or
	// Save in between, in this process or another. A nil result, or an
	// error, leaves the store as it was; the error is Update's. fn must
	// not use the store.
	Update(ctx context.Context, resource string, fn func(cur *Credentials) (*Credentials, error)) error
}

// ErrStoreLocked is returned when a FileStore waited LockWait for another
// process to finish with the file.
var ErrStoreLocked = errors.New("oauth: token store is locked by another process")

// FileStore is a TokenStore in one JSON file, readable by its owner only,
// which several processes may share (two bridges, mcpc and a bridge).
//
// The file is created with mode 0600 (its directory 0700) and replaced
// atomically on each change (a temporary file in the same directory,
// synced, renamed over it), so a reader sees the old file or the new one,
// never part of either. Every Load, Save and Update holds an exclusive
// lock on a lock file beside it (Path + ".lock", flock on Unix, LockFileEx
// on Windows), so that one process's change is never lost to another's
// write of what it read before. FileStore refuses a token file that group
// or others may read, and a symbolic link at Path or at the lock file's
// path: following one would write the tokens, or read them, elsewhere.
type FileStore struct {
	Path string
	// LockWait bounds the wait for the lock held by another process (it
	// may be refreshing a token, one request to the authorization
	// server); zero means 45 seconds. The context bounds it too.
	LockWait time.Duration

	mu sync.Mutex // within the process; the file lock is between processes
}

var _ UpdatingStore = (*FileStore)(nil)

// Load implements TokenStore.
func (s *FileStore) Load(ctx context.Context, resource string) (*Credentials, error) {
	var out *Credentials
	err := s.locked(ctx, func() error {
		all, err := s.read()
		if err != nil {
			return err
		}
		if c, ok := all[resource]; ok {
			out = &c
		}
		return nil
	})
	return out, err
}

// Save implements TokenStore. A nil c removes the resource's credentials.
func (s *FileStore) Save(ctx context.Context, resource string, c *Credentials) error {
	return s.locked(ctx, func() error {
		all, err := s.read()
		if err != nil {
			return err
		}
		if c == nil {
			delete(all, resource)
		} else {
			all[resource] = *clone(c)
		}
		return s.write(all)
	})
}

// Update implements UpdatingStore.
func (s *FileStore) Update(ctx context.Context, resource string, fn func(cur *Credentials) (*Credentials, error)) error {
	return s.locked(ctx, func() error {
		all, err := s.read()
		if err != nil {
			return err
		}
		var cur *Credentials
		if c, ok := all[resource]; ok {
			cur = &c
		}
		next, err := fn(clone(cur))
		if err != nil || next == nil {
			return err
		}
		all[resource] = *clone(next)
		return s.write(all)
	})
}

// locked runs fn holding the store's lock in this process and the lock
// file's between processes.
func (s *FileStore) locked(ctx context.Context, fn func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	dir := filepath.Dir(s.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	lf, err := openNoFollow(s.Path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("oauth: token store lock: %w", err)
	}
	defer lf.Close() // releases the lock too
	wait := s.LockWait
	if wait <= 0 {
		wait = 45 * time.Second
	}
	deadline := time.Now().Add(wait)
	// No blocking lock call takes a timeout: try, and back off, until
	// the deadline or the context ends.
	for backoff := time.Millisecond; ; backoff = min(2*backoff, 50*time.Millisecond) {
		ok, err := tryLock(lf)
		if err != nil {
			return fmt.Errorf("oauth: token store lock: %w", err)
		}
		if ok {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: %s (waited %v)", ErrStoreLocked, s.Path, wait)
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("oauth: token store lock: %w", ctx.Err())
		case <-t.C:
		}
	}
	defer unlock(lf)
	return fn()
}

func (s *FileStore) read() (map[string]Credentials, error) {
	all := map[string]Credentials{}
	f, err := openNoFollow(s.Path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return all, nil
	}
	if err != nil {
		return nil, fmt.Errorf("oauth: token store: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("oauth: token store: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("oauth: token store %s: not a regular file", s.Path)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("oauth: token store %s: mode %v lets others read it; chmod 600 it", s.Path, fi.Mode().Perm())
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("oauth: token store: %w", err)
	}
	if len(data) == 0 {
		return all, nil
	}
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, fmt.Errorf("oauth: token store %s: %w", s.Path, err)
	}
	return all, nil
}

// write replaces the file with all: a new file beside it, synced before
// the rename so that a crash leaves the old file or the whole new one,
// and the directory synced after it so that the rename itself survives.
// The rename replaces whatever is at Path (a symbolic link included)
// without following it.
func (s *FileStore) write(all map[string]Credentials) error {
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.Path)
	f, err := os.CreateTemp(dir, ".tokens-*")
	if err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	defer os.Remove(f.Name()) // after a successful rename, a no-op
	// CreateTemp makes the file 0600 already; Chmod states it.
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("oauth: token store: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("oauth: token store: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("oauth: token store: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	if err := os.Rename(f.Name(), s.Path); err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	return nil
}
