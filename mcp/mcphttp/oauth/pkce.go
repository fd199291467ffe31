package oauth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
)

// randomString returns n random bytes in unpadded base64url: 32 bytes
// give the 43 characters RFC 7636 asks of a code verifier.
func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24)
	return base64.RawURLEncoding.EncodeToString(b)
}

// pkce is one code verifier and its S256 challenge (RFC 7636 §4.2).
type pkce struct {
	verifier  string
	challenge string
}

func newPKCE() pkce {
	v := randomString(32)
	sum := sha256.Sum256([]byte(v))
	return pkce{verifier: v, challenge: base64.RawURLEncoding.EncodeToString(sum[:])}
}
