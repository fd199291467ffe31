package oauth_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// A configuration printed or logged whole, as people debug one, shows
// neither the client's secret nor its private key.
func TestConfigRedactsItself(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	const secret = "cl13nt-s3cr3t-v4lue"
	cfg := oauth.Config{ClientID: "app", ClientSecret: secret, PrivateKey: key, RedirectURL: "http://127.0.0.1:9/cb"}
	em := oauth.EnterpriseManaged{IDPTokenEndpoint: "https://idp.test/token", IDPClientID: "idp-app", IDPClientSecret: secret}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	log.Info("config", "cfg", cfg, "ptr", &cfg, "grant", em, "gptr", &em)
	out := logs.String() + fmt.Sprintf("%v %+v %#v %v %v %+v %#v", cfg, cfg, cfg, &cfg, em, &em, em)
	raw, err := key.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	d := new(big.Int).SetBytes(raw)
	for _, s := range []string{secret, d.String(), d.Text(16)} {
		if strings.Contains(out, s) {
			t.Errorf("%.12s... shows in %s", s, out)
		}
	}
	if !strings.Contains(out, "app") || !strings.Contains(out, "idp-app") {
		t.Errorf("the client IDs should still show: %s", out)
	}
}
