package oauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"time"
)

// dpopKey is the key a DPoP-bound token is bound to (RFC 9449). It lives
// as long as the Transport: a token bound to it is useless after a
// restart, and the Transport then authorizes again.
type dpopKey struct {
	key *ecdsa.PrivateKey
	jwk map[string]any
}

func newDPoPKey() (*dpopKey, error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	jwk, err := publicJWK(k)
	if err != nil {
		return nil, err
	}
	return &dpopKey{key: k, jwk: jwk}, nil
}

// proof returns a fresh DPoP proof for method and target (RFC 9449 §4.2):
// htu without user info, query or fragment (RFC 9449 §4.2; a password in
// the URL must not travel in a proof), a new jti each time, the server's nonce
// if it gave one, and ath, the hash of the access token, when presenting
// one to a resource server.
func (d *dpopKey) proof(method, target, nonce, accessToken string) (string, error) {
	u, err := url.Parse(target)
	if err != nil {
		return "", err
	}
	u.RawQuery, u.Fragment, u.RawFragment, u.User = "", "", "", nil
	claims := map[string]any{
		"jti": randomString(16),
		"htm": method,
		"htu": u.String(),
		"iat": time.Now().Unix(),
	}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	return signJWT(d.key, map[string]any{"typ": "dpop+jwt", "jwk": d.jwk}, claims)
}
