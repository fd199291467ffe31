package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
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

// FileStore is a TokenStore in one JSON file, readable by its owner only:
// the file is created with mode 0600 (its directory 0700) and replaced
// atomically on each Save. It refuses to read a file that group or others
// may read. Safe for concurrent use within one process.
type FileStore struct {
	Path string
	mu   sync.Mutex
}

// Load implements TokenStore.
func (s *FileStore) Load(_ context.Context, resource string) (*Credentials, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	all, err := s.read()
	if err != nil {
		return nil, err
	}
	c, ok := all[resource]
	if !ok {
		return nil, nil
	}
	return &c, nil
}

// Save implements TokenStore.
func (s *FileStore) Save(_ context.Context, resource string, c *Credentials) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	all, err := s.read()
	if err != nil {
		return err
	}
	if c == nil {
		delete(all, resource)
	} else {
		all[resource] = *clone(c)
	}
	data, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
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
	if err := f.Close(); err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	if err := os.Rename(f.Name(), s.Path); err != nil {
		return fmt.Errorf("oauth: token store: %w", err)
	}
	return nil
}

func (s *FileStore) read() (map[string]Credentials, error) {
	all := map[string]Credentials{}
	fi, err := os.Stat(s.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return all, nil
	}
	if err != nil {
		return nil, fmt.Errorf("oauth: token store: %w", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("oauth: token store %s: mode %v lets others read it; chmod 600 it", s.Path, fi.Mode().Perm())
	}
	data, err := os.ReadFile(s.Path)
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
