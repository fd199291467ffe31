package oauth_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// The file store writes 0600 in a 0700 directory, reads back what it
// wrote, and refuses a file others may read.
func TestFileStore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "winbridge", "tokens.json")
	s := &oauth.FileStore{Path: path}
	if c, err := s.Load(ctx, "https://mcp.example/mcp"); c != nil || err != nil {
		t.Fatalf("empty store: %v, %v", c, err)
	}
	want := &oauth.Credentials{Issuer: "https://as.example", ClientID: "cid", ClientSecret: "sec",
		Token: &oauth.Token{AccessToken: "at", RefreshToken: "rt", TokenType: "Bearer", Expiry: time.Unix(2e9, 0).UTC()}}
	if err := s.Save(ctx, "https://mcp.example/mcp", want); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("file mode %v, want 0600", fi.Mode().Perm())
	}
	if di, _ := os.Stat(filepath.Dir(path)); di.Mode().Perm() != 0o700 {
		t.Fatalf("directory mode %v, want 0700", di.Mode().Perm())
	}
	got, err := (&oauth.FileStore{Path: path}).Load(ctx, "https://mcp.example/mcp")
	if err != nil || got == nil || got.Token == nil || got.Token.AccessToken != "at" || got.ClientSecret != "sec" || !got.Token.Expiry.Equal(want.Token.Expiry) {
		t.Fatalf("read back %+v, %v", got, err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load(ctx, "https://mcp.example/mcp"); err == nil {
		t.Fatal("a world-readable token file was read")
	}
	if err := s.Save(ctx, "x", want); err == nil {
		t.Fatal("a world-readable token file was written to")
	}
}
