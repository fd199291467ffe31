package oauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestParseChallenges(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Challenge
	}{
		{`Bearer resource_metadata="https://x/.well-known/oauth-protected-resource", scope="a b"`,
			[]Challenge{{"Bearer", map[string]string{"resource_metadata": "https://x/.well-known/oauth-protected-resource", "scope": "a b"}}}},
		{`Bearer error="insufficient_scope", scope="a\"b", Error_Description=x`,
			[]Challenge{{"Bearer", map[string]string{"error": "insufficient_scope", "scope": `a"b`, "error_description": "x"}}}},
		{`Basic realm="r", DPoP error="use_dpop_nonce", algs="ES256"`,
			[]Challenge{{"Basic", map[string]string{"realm": "r"}}, {"DPoP", map[string]string{"error": "use_dpop_nonce", "algs": "ES256"}}}},
		{`Negotiate abc==, Bearer`, []Challenge{{"Negotiate", map[string]string{}}, {"Bearer", map[string]string{}}}},
		{`=,,"" scope="x`, nil},
		{`Bearer scope="unterminated`, []Challenge{{"Bearer", map[string]string{"scope": "unterminated"}}}},
		// A parameter may occur once per challenge (RFC 9110 §11.2): twice,
		// and which one counts is anyone's guess (a proxy may check the
		// first while the client used the last), so neither does.
		{`Bearer resource_metadata="https://a/prm", scope=x, Resource_Metadata="https://evil/prm", DPoP error=e, error=f`,
			[]Challenge{{"Bearer", map[string]string{"scope": "x"}}, {"DPoP", map[string]string{}}}},
	} {
		h := http.Header{"Www-Authenticate": {tc.in}}
		got := ParseChallenges(h)
		if len(got) != len(tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.in, got, tc.want)
			continue
		}
		for i := range got {
			if got[i].Scheme != tc.want[i].Scheme || len(got[i].Params) != len(tc.want[i].Params) {
				t.Errorf("%s: got %+v, want %+v", tc.in, got, tc.want)
				continue
			}
			for k, v := range tc.want[i].Params {
				if got[i].Params[k] != v {
					t.Errorf("%s: %s = %q, want %q", tc.in, k, got[i].Params[k], v)
				}
			}
		}
	}
}

// A challenge never panics the parser, and a value we quote comes back.
func FuzzParseChallenges(f *testing.F) {
	f.Add(`Bearer resource_metadata="https://x", scope="a b"`, "a b")
	f.Add(`DPoP error="use_dpop_nonce"`, `q"\`)
	f.Add(`,=,"\`, "")
	f.Fuzz(func(t *testing.T, header, scope string) {
		_ = ParseChallenges(http.Header{"Www-Authenticate": {header}})
		if strings.ContainsAny(scope, "\r\n\x00") {
			return
		}
		q := `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(scope) + `"`
		cs := ParseChallenges(http.Header{"Www-Authenticate": {"Bearer scope=" + q + `, error="x"`}})
		if len(cs) != 1 || cs[0].Scope() != scope || cs[0].Error() != "x" {
			t.Fatalf("scope %q came back as %+v", scope, cs)
		}
	})
}

// The resource of the metadata must be the server asked, or a prefix of
// it on a segment boundary, on the same origin.
func TestResourceCovers(t *testing.T) {
	server, _ := url.Parse("https://mcp.example/tenant/mcp")
	for res, want := range map[string]bool{
		"https://mcp.example/tenant/mcp":     true,
		"https://MCP.example:443/tenant/mcp": true,
		"https://mcp.example/tenant":         true,
		"https://mcp.example":                true,
		"https://mcp.example/":               true,
		"https://mcp.example/ten":            false, // not a segment boundary
		"https://mcp.example/tenant/mcp/sub": false,
		"http://mcp.example/tenant/mcp":      false,
		"https://mcp.example:8443/tenant":    false,
		"https://evil.example/tenant/mcp":    false,
		"https://mcp.example.evil/tenant":    false,
		"https://mcp.example/tenant#f":       false,
		"/tenant/mcp":                        false,
		"":                                   false,
	} {
		if got := resourceCovers(res, server); got != want {
			t.Errorf("resourceCovers(%q) = %v, want %v", res, got, want)
		}
	}
}

func FuzzResourceCovers(f *testing.F) {
	f.Add("https://mcp.example/tenant", "https://mcp.example/tenant/mcp")
	f.Add("https://mcp.example/t", "https://mcp.example/tenant")
	f.Fuzz(func(t *testing.T, resource, server string) {
		s, err := url.Parse(server)
		if err != nil {
			return
		}
		if !resourceCovers(resource, s) {
			return
		}
		// Whatever it admits is on the server's origin.
		r, _ := url.Parse(resource)
		if !strings.EqualFold(r.Scheme, s.Scheme) || !strings.EqualFold(hostPort(r), hostPort(s)) {
			t.Fatalf("%q admitted for %q across origins", resource, server)
		}
	})
}

func TestSecureURL(t *testing.T) {
	for u, want := range map[string]bool{
		"https://as.example":       true,
		"http://localhost:9":       true,
		"http://127.0.0.1/x":       true,
		"http://[::1]:80":          true,
		"http://as.example":        false,
		"http://localhost.evil":    false,
		"https://user:pw@as":       false,
		"ftp://as.example":         false,
		"https:///nohost":          false,
		"javascript:alert(1)":      false,
		"http://127.0.0.1.nip.io/": false,
	} {
		if got := secureURL(u, false); got != want {
			t.Errorf("secureURL(%q) = %v, want %v", u, got, want)
		}
	}
	if !secureURL("http://as.example", true) {
		t.Error("InsecureHTTP does not admit plain http")
	}
}

func TestMetadataURLs(t *testing.T) {
	s, _ := url.Parse("https://h/a/mcp/")
	if got := strings.Join(resourceMetadataURLs(s), " "); got != "https://h/.well-known/oauth-protected-resource/a/mcp https://h/.well-known/oauth-protected-resource" {
		t.Errorf("resource metadata URLs: %s", got)
	}
	i, _ := url.Parse("https://as/tenant1")
	if got := strings.Join(serverMetadataURLs(i), " "); got != "https://as/.well-known/oauth-authorization-server/tenant1 https://as/.well-known/openid-configuration/tenant1 https://as/tenant1/.well-known/openid-configuration" {
		t.Errorf("server metadata URLs: %s", got)
	}
	i, _ = url.Parse("https://as/")
	if got := strings.Join(serverMetadataURLs(i), " "); got != "https://as/.well-known/oauth-authorization-server https://as/.well-known/openid-configuration" {
		t.Errorf("root server metadata URLs: %s", got)
	}
}

// verifyES256 checks a compact JWS signed by signJWT against the P-256 key
// in jwk and returns its header and claims.
func verifyES256(t *testing.T, jws string, pub *ecdsa.PublicKey) (map[string]any, map[string]any) {
	t.Helper()
	parts := strings.Split(jws, ".")
	if len(parts) != 3 {
		t.Fatalf("not a compact JWS: %d parts", len(parts))
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		t.Fatalf("signature: %v (%d bytes)", err, len(sig))
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(pub, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		t.Fatal("signature does not verify")
	}
	var h, c map[string]any
	hb, _ := base64.RawURLEncoding.DecodeString(parts[0])
	cb, _ := base64.RawURLEncoding.DecodeString(parts[1])
	if json.Unmarshal(hb, &h) != nil || json.Unmarshal(cb, &c) != nil {
		t.Fatal("header or claims not JSON")
	}
	return h, c
}

// A DPoP proof is a dpop+jwt signed by the key its jwk header carries,
// with htu stripped of query and fragment, a fresh jti, the nonce and ath.
func TestDPoPProof(t *testing.T) {
	k, err := newDPoPKey()
	if err != nil {
		t.Fatal(err)
	}
	p1, err := k.proof("POST", "https://rs.example/mcp?x=1#f", "n1", "tok")
	if err != nil {
		t.Fatal(err)
	}
	// The public key rebuilt from the jwk header, as a server does.
	h, c := verifyES256(t, p1, &k.key.PublicKey)
	jwk := h["jwk"].(map[string]any)
	x, _ := base64.RawURLEncoding.DecodeString(jwk["x"].(string))
	y, _ := base64.RawURLEncoding.DecodeString(jwk["y"].(string))
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
	if err != nil {
		t.Fatalf("the jwk's x and y are not a P-256 point: %v", err)
	}
	verifyES256(t, p1, pub)
	if _, hasD := jwk["d"]; hasD || h["typ"] != "dpop+jwt" || h["alg"] != "ES256" {
		t.Fatalf("header %v", h)
	}
	ath := sha256.Sum256([]byte("tok"))
	if c["htm"] != "POST" || c["htu"] != "https://rs.example/mcp" || c["nonce"] != "n1" || c["ath"] != base64.RawURLEncoding.EncodeToString(ath[:]) {
		t.Fatalf("claims %v", c)
	}
	// User info in the URL (a password, say) stays out of the proof: the
	// server compares htu with its own URL, which has none, and a proof
	// may be logged.
	p3, err := k.proof("GET", "https://user:pa55word@rs.example/mcp", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, c3 := verifyES256(t, p3, pub); c3["htu"] != "https://rs.example/mcp" {
		t.Fatalf("htu %v carries the URL's user info", c3["htu"])
	}
	p2, _ := k.proof("POST", "https://rs.example/mcp", "", "")
	_, c2 := verifyES256(t, p2, pub)
	if c2["jti"] == c["jti"] || c2["nonce"] != nil || c2["ath"] != nil {
		t.Fatalf("second proof %v reuses the first's jti or carries its nonce/ath", c2)
	}
}

// The private_key_jwt assertion is signed by the configured key, issued
// by and about the client, for the authorization server, short-lived.
func TestClientAssertion(t *testing.T) {
	priv, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(priv)
	key, err := ParsePrivateKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	a, err := clientAssertion(key, "cid", "https://as.example", now)
	if err != nil {
		t.Fatal(err)
	}
	_, c := verifyES256(t, a, &priv.PublicKey)
	if c["iss"] != "cid" || c["sub"] != "cid" || c["aud"] != "https://as.example" || c["jti"] == "" || c["exp"].(float64) > float64(now.Add(10*time.Minute).Unix()) {
		t.Fatalf("claims %v", c)
	}
	if _, err := ParsePrivateKey([]byte("not pem")); err == nil {
		t.Fatal("ParsePrivateKey accepted garbage")
	}
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	der, _ = x509.MarshalPKCS8PrivateKey(p384)
	if _, err := ParsePrivateKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})); err == nil {
		t.Fatal("ParsePrivateKey accepted a P-384 key it cannot sign ES256 with")
	}
}

func TestPKCE(t *testing.T) {
	p := newPKCE()
	sum := sha256.Sum256([]byte(p.verifier))
	if len(p.verifier) != 43 || p.challenge != base64.RawURLEncoding.EncodeToString(sum[:]) {
		t.Fatalf("verifier %d chars, challenge mismatch", len(p.verifier))
	}
	if newPKCE().verifier == p.verifier {
		t.Fatal("two verifiers are equal")
	}
}

// A Transport keeps state for at most maxEndpoints endpoints.
func TestEndpointStatesBounded(t *testing.T) {
	tr := &Transport{}
	for i := range 3 * maxEndpoints {
		s := tr.stateFor("https://h/" + strings.Repeat("x", i))
		if s == nil {
			t.Fatal("no state")
		}
	}
	if n := len(tr.states); n != maxEndpoints {
		t.Fatalf("%d states kept, want %d", n, maxEndpoints)
	}
}
