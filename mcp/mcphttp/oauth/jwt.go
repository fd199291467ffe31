package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"time"
)

// ParsePrivateKey reads a PEM private key (PKCS #8, or SEC 1 "EC PRIVATE
// KEY", or PKCS #1 "RSA PRIVATE KEY") of an ECDSA P-256 or RSA key, for
// the private_key_jwt client authentication.
func ParsePrivateKey(pemData []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(pemData)
	if block == nil {
		return nil, errors.New("oauth: private key: no PEM block")
	}
	var key any
	var err error
	switch block.Type {
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	if err != nil {
		// The parser's error names the structure, never the key bytes.
		return nil, fmt.Errorf("oauth: private key: %w", err)
	}
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		if k.Curve.Params().BitSize != 256 {
			return nil, errors.New("oauth: private key: only P-256 ECDSA keys (ES256) are supported")
		}
		return k, nil
	case *rsa.PrivateKey:
		return k, nil
	}
	return nil, fmt.Errorf("oauth: private key: unsupported key type %T", key)
}

// jwsAlg names the JWS algorithm of a key: ES256 for P-256, RS256 for RSA.
func jwsAlg(key crypto.Signer) (string, error) {
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		if k.Curve.Params().BitSize == 256 {
			return "ES256", nil
		}
	case *rsa.PrivateKey:
		return "RS256", nil
	}
	return "", fmt.Errorf("oauth: unsupported signing key %T", key)
}

// signJWT returns the compact JWS of claims under header, signed with
// key (ES256 or RS256; the header's alg is set here).
func signJWT(key crypto.Signer, header map[string]any, claims map[string]any) (string, error) {
	alg, err := jwsAlg(key)
	if err != nil {
		return "", err
	}
	header["alg"] = alg
	h, err := json.Marshal(header)
	if err != nil {
		return "", err
	}
	c, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	input := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c)
	sum := sha256.Sum256([]byte(input))
	var sig []byte
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		r, s, err := ecdsa.Sign(rand.Reader, k, sum[:])
		if err != nil {
			return "", fmt.Errorf("oauth: sign: %w", err)
		}
		// JWS wants r||s, each left-padded to the curve size (RFC 7518 §3.4).
		sig = make([]byte, 64)
		r.FillBytes(sig[:32])
		s.FillBytes(sig[32:])
	case *rsa.PrivateKey:
		sig, err = rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, sum[:])
		if err != nil {
			return "", fmt.Errorf("oauth: sign: %w", err)
		}
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// clientAssertion is the private_key_jwt assertion of RFC 7523 §2.2: the
// client asserts itself (iss = sub = client_id) to the authorization
// server (aud = its issuer), valid for five minutes.
func clientAssertion(key crypto.Signer, clientID, audience string, now time.Time) (string, error) {
	return signJWT(key, map[string]any{"typ": "JWT"}, map[string]any{
		"iss": clientID,
		"sub": clientID,
		"aud": audience,
		"iat": now.Unix(),
		"exp": now.Add(5 * time.Minute).Unix(),
		"jti": randomString(16),
	})
}

// publicJWK is the JWK of key's public half (RFC 7517), members in the
// order RFC 7638 hashes them.
func publicJWK(key crypto.Signer) (map[string]any, error) {
	switch k := key.Public().(type) {
	case *ecdsa.PublicKey:
		raw, err := k.Bytes() // uncompressed point: 0x04 || x || y
		if err != nil {
			return nil, err
		}
		return map[string]any{
			"crv": "P-256",
			"kty": "EC",
			"x":   base64.RawURLEncoding.EncodeToString(raw[1:33]),
			"y":   base64.RawURLEncoding.EncodeToString(raw[33:65]),
		}, nil
	case *rsa.PublicKey:
		return map[string]any{
			"e":   base64.RawURLEncoding.EncodeToString(big.NewInt(int64(k.E)).Bytes()),
			"kty": "RSA",
			"n":   base64.RawURLEncoding.EncodeToString(k.N.Bytes()),
		}, nil
	}
	return nil, fmt.Errorf("oauth: unsupported public key %T", key.Public())
}
