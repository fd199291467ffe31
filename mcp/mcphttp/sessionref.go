package mcphttp

import (
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
)

// logRef is how log lines name the session: a digest of its ID, never the
// ID itself. The ID is what a client presents to use the session, so a
// log reader who saw it could take the session over (where no bearer
// token binds it); 8 bytes of SHA-256 still tell sessions apart and match
// a session whose ID one already knows.
func (s *httpSession) logRef() slog.Attr { return sessionRef(s.id) }

// sessionRef is logRef for a session known by its ID only.
func sessionRef(id string) slog.Attr {
	if id == "" {
		return slog.String("session", "stateless")
	}
	sum := sha256.Sum256([]byte(id))
	return slog.String("session", "sha256:"+hex.EncodeToString(sum[:8]))
}
