package httpserve

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Every token Config accepts is at least MinTokenLen characters of the
// bearer-token alphabet, and a client sending it is admitted.
func FuzzToken(f *testing.F) {
	for _, s := range []string{"", "short", "0123456789abcdef", " 0123456789abcdef\n", "0123456789abcdef\x00", "0123456789 abcdef", "ÄÖÜ0123456789abcdef", "0123456789abcdef=="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		token, err := (&Config{Token: s}).token()
		if err != nil || token == "" {
			return
		}
		if len(token) < MinTokenLen || strings.TrimFunc(token, isTokenChar) != "" {
			t.Fatalf("accepted %q", token)
		}
		h := (&Endpoint{Token: token}).Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) }))
		req := httptest.NewRequest(http.MethodGet, "/mcp", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusTeapot {
			t.Fatalf("a client sending the accepted token %q is refused: %d", token, rec.Code)
		}
	})
}
