package echo

import (
	"strings"
	"testing"
)

// Shapes beyond TestSecretShapesAreMasked, found by a hostile review:
// JSON quoted inside strings at any depth, name/value pairs under other
// names (header/value, field/val, ["X-Api-Key", "..."]), containers whose
// names end in headers or env, OAuth's verifier, assertion, DPoP proof
// and code, and curl's -u user:password. Each leaked before.
func TestSecretShapesNestedAndPaired(t *testing.T) {
	const S = "s3cr3tV4lue"
	e := New(Config{})
	bodies := map[string]string{
		"double-encoded":     `{"text":"{\"body\":\"{\\\"password\\\":\\\"` + S + `\\\"}\"}"}`,
		"tool result text":   `{"result":{"content":[{"type":"text","text":"{\"config\":{\"apiKey\":\"` + S + `\"}}"}]}}`,
		"pair arrays":        `{"hdrs":[["X-Api-Key","` + S + `"],["Accept","json"]]}`,
		"header/value":       `{"h":[{"header":"X-Api-Key","value":"` + S + `"}]}`,
		"requestHeaders":     `{"requestHeaders":{"X-Custom":"` + S + `"}}`,
		"environmentVars":    `{"environmentVariables":{"FOO":"` + S + `"}}`,
		"escaped name":       `{"pa\u0073sword":"` + S + `"}`,
		"field/val":          `{"field":"password","val":"` + S + `"}`,
		"key/value":          `[{"Key":"DB_PASSWORD","Value":"` + S + `"}]`,
		"set-cookie text":    `{"raw":"Set-Cookie: sid=` + S + `; Path=/"}`,
		"cookie text":        `{"raw":"Cookie: a=b; session=` + S + `"}`,
		"basic b64":          `{"raw":"Authorization: Basic czNjcjN0VjR sdWU="}`,
		"url-encoded name":   `{"url":"https://x.test/?q=1&client%5Fsecret=` + S + `"}`,
		"yaml":               `{"cfg":"db:\n  password: ` + S + `\n"}`,
		"sse in string":      `{"raw":"data: {\"token\":\"` + S + `\"}"}`,
		"PGPASSWORD env str": `{"command":"export PGPASSWORD='` + S + `'"}`,
		"curl -u":            `{"args":["curl","-u","bob:` + S + `","https://x"]}`,
		"mixed case env":     `{"Env":{"X":"` + S + `"}}`,
		"x-api-key upper":    `{"X-API-KEY":"` + S + `"}`,
		"GH_TOKEN":           `{"GH_TOKEN":"` + S + `"}`,
		"clientSecret":       `{"clientSecret":"` + S + `"}`,
		"dpop":               `{"DPoP":"` + S + `"}`,
		"code_verifier":      `{"code_verifier":"` + S + `"}`,
		"code":               `{"grant_type":"authorization_code","code":"` + S + `"}`,
		"assertion":          `{"client_assertion":"` + S + `"}`,
		"id_token":           `{"id_token":"` + S + `"}`,
	}
	for name, b := range bodies {
		got := render1(e, b)
		if strings.Contains(got, S) || strings.Contains(got, "czNjcjN0VjR") {
			t.Errorf("%s: leaked: %s", name, got)
		}
	}
	hs := map[string]map[string][]string{
		"dup cookie": {"cookie": {"a=1", "sid=" + S}},
		"x-csrf":     {"X-CSRF-Token": {S}},
		"dpop":       {"DPoP": {S}},
		"www-auth":   {"Www-Authenticate": {`Bearer error="invalid_token", access_token="` + S + `"`}},
		"location":   {"Location": {"https://cb.test/cb?code=" + S + "&state=x"}},
	}
	keep := map[string]string{
		`{"error":{"code":-32600,"message":"bad"}}`:                 `"code":-32600`,
		`{"vars":[{"name":"LEVEL","value":"debug"}]}`:               `"value":"debug"`,
		`{"text":"{\"user\":\"bob\",\"token\":\"x\"}"}`:             `\"user\":\"bob\"`,
		`{"hdrs":[["Accept","json"]]}`:                              `"json"`,
		`{"args":["-v","--user","bob"]}`:                            `"bob"`,
		`{"url":"https://x.test/?source=code&q=1"}`:                 `source=code`,
		`{"requestHeaders":{"Accept":"json"},"headerless":"shown"}`: `"shown"`,
	}
	for b, want := range keep {
		if got := render1(e, b); !strings.Contains(got, want) {
			t.Errorf("%s: %q not shown: %s", b, want, got)
		}
	}
	for name, h := range hs {
		got := e.HeaderText(h)
		if strings.Contains(got, S) {
			t.Errorf("%s: leaked: %s", name, got)
		}
	}
}

// A frame's method and id are the peer's and are cut to the text limit
// like every other value the echo shows.
func TestLogFrameCutsMethodAndID(t *testing.T) {
	var b strings.Builder
	e := New(Config{Writer: &b, MaxText: 64})
	long := strings.Repeat("m", 100000)
	e.LogFrame("recv", []byte(`{"jsonrpc":"2.0","id":"`+long+`","method":"`+long+`"}`))
	if n := b.Len(); n > 1000 {
		t.Errorf("one frame logged %d bytes with a 64-byte limit", n)
	}
}
