package mcphttp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// RequireBearer admits a request exactly when its Authorization header is
// the Bearer scheme (any case) followed by the token, give or take
// surrounding white space, and never lets anything else through.
func FuzzRequireBearer(f *testing.F) {
	const token = "fuzz-token-0123456789"
	for _, seed := range []string{
		"Bearer " + token, "bearer " + token, "BEARER  " + token + " ", "Bearer " + token + "x",
		"Bearer " + token[:len(token)-1], "Basic " + token, token, "Bearer", "Bearer ", "",
		"Bearer\t" + token, "Bearer " + strings.ToUpper(token), "Bearer " + token + " " + token,
	} {
		f.Add(seed)
	}
	h := mcphttp.RequireBearer(token, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
	}))
	f.Fuzz(func(t *testing.T, auth string) {
		req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		req.Header.Set("Authorization", auth)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		scheme, rest, _ := strings.Cut(auth, " ")
		want := strings.EqualFold(scheme, "bearer") && strings.TrimSpace(rest) == token
		switch {
		case want && rec.Code != http.StatusTeapot:
			t.Fatalf("%q refused: %d", auth, rec.Code)
		case !want && rec.Code != http.StatusUnauthorized:
			t.Fatalf("%q admitted: %d", auth, rec.Code)
		case !want && !strings.HasPrefix(rec.Header().Get("WWW-Authenticate"), "Bearer "):
			t.Fatalf("%q refused without a Bearer challenge", auth)
		}
	})
}
