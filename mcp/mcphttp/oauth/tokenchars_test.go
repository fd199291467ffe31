package oauth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// An access token that cannot travel in an Authorization header (a line
// break, a space, a control character: a header injection, or a request
// that fails before it leaves) is refused where it is issued: stored, it
// would make every later request fail with an error that is not a 401,
// so the client would never authorize again and stay broken. The error
// does not repeat the token.
func TestTokenThatCannotBeSentIsRefused(t *testing.T) {
	for _, bad := range []string{"good\r\nX-Injected: 1", "good token", "good\x00", "caf\xc3\xa9", strings.Repeat("a", 65<<10)} {
		as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"access_token": bad, "token_type": "Bearer"})
		}))
		f := newFake(t)
		m := f.meta
		f.meta = func(base string) map[string]any {
			v := m(base)
			v["token_endpoint"] = as.URL + "/token"
			return v
		}
		store := oauth.NewMemoryStore()
		_, err := f.get(t, &oauth.Config{Store: store})
		as.Close()
		if err == nil {
			t.Errorf("token %.20q: the request succeeded", bad)
			continue
		}
		if strings.Contains(err.Error(), "X-Injected") || strings.Contains(err.Error(), "aaaa") {
			t.Errorf("the error repeats the token: %v", err)
		}
		if c, _ := store.Load(context.Background(), f.url+"/mcp"); c != nil && c.Token != nil {
			t.Errorf("token %.20q was stored", bad)
		}
	}
}
