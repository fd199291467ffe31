package oauth_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// The words an authorization server puts in an error (error,
// error_description, from its token endpoint or on the redirect) reach
// the user's terminal through the error's text: they arrive bounded,
// valid UTF-8 and without control characters, so a hostile server can
// neither flood the message nor send escape sequences to the terminal.
func TestServerErrorTextIsTamed(t *testing.T) {
	hostile := "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J" + strings.Repeat("é", 40) + "\u202e" + strings.Repeat("x", 100<<10)
	check := func(t *testing.T, err error) {
		t.Helper()
		if err == nil {
			t.Fatal("no error")
		}
		msg := err.Error()
		if len(msg) > 1024 {
			t.Errorf("error is %d bytes long", len(msg))
		}
		if !utf8.ValidString(msg) {
			t.Errorf("error is not valid UTF-8: %q", msg)
		}
		for _, r := range msg {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
				t.Fatalf("error carries %U: %q", r, msg)
			}
		}
	}
	t.Run("token endpoint", func(t *testing.T) {
		as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]string{"error": hostile, "error_description": hostile})
		}))
		defer as.Close()
		f := newFake(t)
		m := f.meta
		f.meta = func(base string) map[string]any {
			v := m(base)
			v["token_endpoint"] = as.URL + "/token"
			return v
		}
		_, err := f.get(t, &oauth.Config{ClientID: "cid", ClientSecret: "s3cret", ClientIssuer: f.url, Grant: oauth.ClientCredentials{}})
		var te *oauth.TokenError
		if !errors.As(err, &te) {
			t.Fatalf("err = %v, want a TokenError", err)
		}
		check(t, err)
	})
	t.Run("redirect", func(t *testing.T) {
		f := newFake(t)
		f.redirect = func(q url.Values, base string) url.Values {
			return url.Values{"error": {hostile}, "error_description": {hostile}, "state": {q.Get("state")}}
		}
		_, err := f.get(t, nil)
		var ae *oauth.AuthorizationError
		if !errors.As(err, &ae) {
			t.Fatalf("err = %v, want an AuthorizationError", err)
		}
		check(t, err)
	})
}
