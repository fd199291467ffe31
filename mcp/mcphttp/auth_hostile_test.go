package mcphttp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/mcp/mcphttp"
)

// TestRequireBearerHostileHeaders: the header tricks a client might try.
// A request with two Authorization headers has none (the field is a
// singleton, and a proxy may have checked the other one); the token must
// be the whole credential; other headers carry nothing.
func TestRequireBearerHostileHeaders(t *testing.T) {
	_, url := serveHTTPWrapped(t, httpTestServer(), nil, func(h http.Handler) http.Handler {
		return mcphttp.RequireBearer(testToken, h)
	})
	post := func(hdr http.Header) int {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initBody))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, vs := range hdr {
			for _, v := range vs {
				req.Header.Add(k, v)
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for name, hdr := range map[string]http.Header{
		"a wrong token, then the token":     {"Authorization": {"Bearer wrong-token-0123456789x", "Bearer " + testToken}},
		"the token, then a wrong token":     {"Authorization": {"Bearer " + testToken, "Bearer wrong-token-0123456789x"}},
		"the token twice, in two headers":   {"Authorization": {"Bearer " + testToken, "Bearer " + testToken}},
		"both in one header":                {"Authorization": {"Bearer wrong, Bearer " + testToken}},
		"the token in Proxy-Authorization":  {"Proxy-Authorization": {"Bearer " + testToken}},
		"the token as a query-like header":  {"X-Access-Token": {testToken}},
		"a tab for the space":               {"Authorization": {"Bearer\t" + testToken}},
		"a no-break space for the space":    {"Authorization": {"Bearer\u00a0" + testToken}},
		"no scheme":                         {"Authorization": {testToken}},
		"the scheme glued to the token":     {"Authorization": {"Bearer" + testToken}},
		"a scheme with a prefix":            {"Authorization": {"XBearer " + testToken}},
		"the token twice":                   {"Authorization": {"Bearer " + testToken + " " + testToken}},
		"the token in upper case":           {"Authorization": {"Bearer " + strings.ToUpper(testToken)}},
		"the token short of a character":    {"Authorization": {"Bearer " + testToken[:len(testToken)-1]}},
		"the token with a comma and params": {"Authorization": {"Bearer " + testToken + ", realm=x"}},
	} {
		if got := post(hdr); got != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 401", name, got)
		}
	}
	// Spacing around the token is tolerated; it does not change the token.
	if got := post(http.Header{"Authorization": {"Bearer   " + testToken + "  "}}); got != http.StatusOK {
		t.Errorf("extra spaces around the token: %d, want 200", got)
	}
}
