package oauth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/winbridge/winbridge/mcp/mcphttp/oauth"
)

// An expires_in too large for a time.Duration (here about 295 years,
// which overflowed into the past) leaves the token valid: it is not
// taken for expired, which made every request run the grant again.
func TestHugeExpiresInIsNotExpired(t *testing.T) {
	f := newFake(t)
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.tokens.Add(1)
		json.NewEncoder(w).Encode(map[string]any{"access_token": "good", "token_type": "Bearer", "expires_in": 9300000000})
	}))
	defer tokens.Close()
	meta := f.meta
	f.meta = func(base string) map[string]any {
		v := meta(base)
		v["token_endpoint"] = tokens.URL + "/token"
		return v
	}
	hc := &http.Client{Transport: &oauth.Transport{Config: &oauth.Config{
		UserAgent: oauth.UserAgentFunc(headless), RedirectURL: "http://127.0.0.1:9/cb",
	}}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := range 3 {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, f.url+"/mcp", nil)
		resp, err := hc.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d: %v %v", i, resp, err)
		}
		resp.Body.Close()
	}
	if n := f.tokens.Load(); n != 1 {
		t.Fatalf("%d token requests for three requests, want 1", n)
	}
}
