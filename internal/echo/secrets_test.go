package echo

import (
	"encoding/json"
	"strings"
	"testing"
)

func render1(e *Echo, body string) string {
	c := e.NewCapture()
	c.Add([]byte(body))
	return e.Render(c, false)
}

// Every shape a secret takes in what the echo shows: the secret never
// appears, and the harmless values beside it still do.
func TestSecretShapesAreMasked(t *testing.T) {
	const S = "s3cr3tV4lue" // the secret in every case
	type tc struct {
		name    string
		body    string              // a JSON body (or any body), rendered
		headers map[string][]string // or headers
		keep    []string            // must still be shown
	}
	h := func(k string) map[string][]string {
		return map[string][]string{k: {S}, "Content-Type": {"application/json"}}
	}
	cases := []tc{
		// Header names.
		{name: "Authorization", headers: map[string][]string{"Authorization": {"Bearer " + S}, "Accept": {"text/event-stream"}}, keep: []string{"Accept: text/event-stream"}},
		{name: "Proxy-Authorization", headers: h("Proxy-Authorization"), keep: []string{"application/json"}},
		{name: "Authentication", headers: h("Authentication"), keep: []string{"application/json"}},
		{name: "Cookie", headers: h("Cookie"), keep: []string{"application/json"}},
		{name: "Set-Cookie", headers: h("Set-Cookie"), keep: []string{"application/json"}},
		{name: "X-Api-Key", headers: h("X-Api-Key"), keep: []string{"application/json"}},
		{name: "X-Access-Key", headers: h("X-Access-Key"), keep: []string{"application/json"}},
		{name: "X-Auth-Token", headers: h("X-Auth-Token"), keep: []string{"application/json"}},
		{name: "Mcp-Session-Id", headers: h("Mcp-Session-Id"), keep: []string{"application/json"}},
		{name: "X-Amz-Security-Token", headers: h("X-Amz-Security-Token"), keep: []string{"application/json"}},
		{name: "X-Hub-Signature-256", headers: h("X-Hub-Signature-256"), keep: []string{"application/json"}},
		{name: "Referer with userinfo", headers: map[string][]string{"Referer": {"https://bob:" + S + "@example.test/x"}}, keep: []string{"https://bob:", "@example.test/x"}},
		// JSON member names, at any depth.
		{name: "password", body: `{"password":"` + S + `","user":"bob"}`, keep: []string{`"user":"bob"`}},
		{name: "nested apiKey", body: `{"a":{"b":[{"apiKey":"` + S + `","n":1}]}}`, keep: []string{`"n":1`}},
		{name: "client_secret", body: `{"client_secret":"` + S + `","client_id":"app"}`, keep: []string{`"client_id":"app"`}},
		{name: "accessToken", body: `{"accessToken":"` + S + `"}`},
		{name: "refresh_token", body: `{"refresh_token":"` + S + `"}`},
		{name: "passwd", body: `{"passwd":"` + S + `"}`},
		{name: "pwd", body: `{"pwd":"` + S + `"}`},
		{name: "private_key object", body: `{"private_key":{"d":"` + S + `"},"kty":"EC"}`, keep: []string{`"kty":"EC"`}},
		{name: "credentials array", body: `{"credentials":["` + S + `"]}`},
		{name: "sessionId", body: `{"sessionId":"` + S + `"}`},
		{name: "signature", body: `{"signature":"` + S + `"}`},
		{name: "authorization member", body: `{"authorization":"Basic ` + S + `"}`},
		{name: "cookie member", body: `{"cookie":"sid=` + S + `"}`},
		// Environment variables: every value under env, whatever the name.
		{name: "env GITHUB_PAT", body: `{"env":{"GITHUB_PAT":"` + S + `"}}`, keep: []string{"GITHUB_PAT"}},
		{name: "env DB_PASS", body: `{"env":{"DB_PASS":"` + S + `"}}`, keep: []string{"DB_PASS"}},
		{name: "env AWS_ACCESS_KEY_ID", body: `{"env":{"AWS_ACCESS_KEY_ID":"` + S + `"}}`},
		{name: "env harmless-looking name", body: `{"arguments":{"exe":"app","env":{"FOO":"` + S + `"}}}`, keep: []string{`"exe":"app"`, `"FOO"`}},
		{name: "env as a list", body: `{"environment":["LEVEL=debug","X=` + S + `"]}`, keep: []string{"LEVEL=", "X="}},
		{name: "headers member", body: `{"headers":{"X-Custom":"` + S + `"},"url":"https://example.test"}`, keep: []string{"https://example.test"}},
		{name: "name/value pair", body: `{"vars":[{"name":"DB_PASSWORD","value":"` + S + `"},{"name":"LEVEL","value":"debug"}]}`, keep: []string{`"value":"debug"`}},
		{name: "bare GITHUB_PAT member", body: `{"GITHUB_PAT":"` + S + `"}`},
		{name: "bare DB_PASS member", body: `{"DB_PASS":"` + S + `"}`},
		{name: "bare AWS_ACCESS_KEY_ID member", body: `{"AWS_ACCESS_KEY_ID":"` + S + `"}`},
		// Argument vectors and command lines.
		{name: "argv --password value", body: `{"args":["-u","bob","--password","` + S + `","--verbose"]}`, keep: []string{`"bob"`, `"--verbose"`}},
		{name: "argv --token=value", body: `{"args":["--token=` + S + `","x"]}`, keep: []string{`"x"`, "--token="}},
		{name: "command line --password value", body: `{"command":"mysql -u bob --password ` + S + ` db"}`, keep: []string{"mysql -u bob --password", " db"}},
		{name: "command line --api-key=value", body: `{"command":"tool --api-key=` + S + ` run"}`, keep: []string{"tool --api-key=", " run"}},
		{name: "command line env assignment", body: `{"command":"DB_PASS=` + S + ` ./run.sh"}`, keep: []string{"./run.sh"}},
		// URLs, bearer values, query parameters, connection strings.
		{name: "URL user:pass@", body: `{"url":"https://bob:` + S + `@example.test/repo.git"}`, keep: []string{"https://bob:", "@example.test/repo.git"}},
		{name: "postgres URL", body: `{"db_url":"postgres://app:` + S + `@db:5432/app"}`, keep: []string{"@db:5432/app"}},
		{name: "bearer in text", body: `{"note":"send Authorization: Bearer ` + S + ` please"}`, keep: []string{"please"}},
		{name: "?access_token=", body: `{"url":"https://api.example.test/v1?access_token=` + S + `&page=2"}`, keep: []string{"page=2", "https://api.example.test/v1?access_token="}},
		{name: "&api_key=", body: `{"url":"https://x.test/?q=go&api_key=` + S + `"}`, keep: []string{"q=go"}},
		{name: "connection string", body: `{"conn":"Server=db;User Id=app;Password=` + S + `;Database=x"}`, keep: []string{"Server=db", "Database=x"}},
		{name: "JSON quoted in a string", body: `{"arguments":"{\"password\":\"` + S + `\",\"text\":\"hi\"}"}`, keep: []string{`hi`}},
		{name: "JSON-RPC tools/call", body: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"login","arguments":{"user":"bob","pass":"` + S + `"}}}`, keep: []string{`"user":"bob"`, `"method":"tools/call"`}},
		// Bodies that are not JSON are never shown.
		{name: "BOM before JSON", body: "\xef\xbb\xbf" + `{"password":"` + S + `"}`, keep: []string{"byte order mark"}},
		{name: "form-encoded", body: `grant_type=password&username=bob&password=` + S, keep: []string{"form-encoded"}},
		{name: "invalid JSON", body: `{password: "` + S + `"}`, keep: []string{"not valid JSON"}},
		{name: "two values", body: `{"a":1} {"b":"` + S + `"}`, keep: []string{"not valid JSON"}},
		{name: "plain text", body: `token ` + S, keep: []string{"bytes"}},
	}
	if len(cases) < 40 {
		t.Fatalf("only %d shapes", len(cases))
	}
	e := New(Config{MaxText: 1 << 16})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got string
			if c.headers != nil {
				got = e.HeaderText(c.headers)
			} else {
				got = render1(e, c.body)
			}
			if strings.Contains(got, S) || strings.Contains(got, S[2:8]) {
				t.Errorf("the secret shows: %s", got)
			}
			for _, k := range c.keep {
				if !strings.Contains(got, k) {
					t.Errorf("%q is hidden too: %s", k, got)
				}
			}
		})
	}
}

// Harmless names and values stay visible: the echo is for reading.
func TestHarmlessValuesStayVisible(t *testing.T) {
	e := New(Config{MaxText: 1 << 16})
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"win.exec","arguments":{"exe":"git","args":["log","--author","Jane","-n","5"],"cwd":"/home/x","path":"C:\\x"},"_meta":{"progressToken":7}},"maxTokens":100,"author":"Jane","keywords":["a"],"monkey":"banana","compass":"north"}`
	got := render1(e, body)
	for _, k := range []string{`"exe":"git"`, `"--author","Jane"`, `"progressToken":7`, `"maxTokens":100`, `"author":"Jane"`, `"monkey":"banana"`, `"compass":"north"`, `"path":"C:\\x"`, `"keywords":["a"]`} {
		if !strings.Contains(got, k) {
			t.Errorf("%s hidden: %s", k, got)
		}
	}
	if got := e.HeaderText(map[string][]string{"Accept": {"application/json"}, "Mcp-Protocol-Version": {"2025-11-25"}}); got != "Accept: application/json; Mcp-Protocol-Version: 2025-11-25" {
		t.Errorf("headers: %s", got)
	}
}

// A body cut short by the capture still renders, masked, as far as it
// goes; a secret member cut in the middle shows nothing of its value.
func TestTruncatedCaptureRendersMasked(t *testing.T) {
	e := New(Config{MaxText: 1 << 16, MaxCapture: 40})
	c := e.NewCapture()
	c.Add([]byte(`{"user":"bob","password":"s3cr3tV4lue-and-more-bytes-after-the-cut"}`))
	got := e.Render(c, false)
	if strings.Contains(got, "s3cr3t") || !strings.Contains(got, `"user":"bob"`) || !strings.Contains(got, "truncated") {
		t.Errorf("got %s", got)
	}
}

func TestSensitiveNames(t *testing.T) {
	e := New(Config{MaskFields: []string{"x-tenant"}})
	for _, n := range []string{"Authorization", "Authentication", "X-Access-Key", "GITHUB_PAT", "DB_PASS", "AWS_ACCESS_KEY_ID",
		"AWS_SECRET_ACCESS_KEY", "Mcp-Session-Id", "apiKey", "api-key", "client_secret", "id_token", "passphrase", "otp", "X_Tenant", "privateKey", "sshKey", "jwt"} {
		if !e.Sensitive(n) {
			t.Errorf("%s not sensitive", n)
		}
	}
	for _, n := range []string{"progressToken", "maxTokens", "author", "coauthor", "monkey", "keyword", "path", "compass", "patch", "name", "value", "exe", "args", "cwd", "method"} {
		if e.Sensitive(n) {
			t.Errorf("%s sensitive", n)
		}
	}
}

// FuzzRender: a body that is not JSON is never shown, only its length;
// JSON is shown as JSON, with every member named like a secret masked.
func FuzzRender(f *testing.F) {
	for _, s := range []string{
		`{"password":"x","a":[1,{"token":"y"}]}`,
		"\xef\xbb\xbf{\"password\":\"x\"}",
		`a=b&password=c`,
		`{"env":{"A":"b"},"args":["--password","p"]}`,
		`[[[[[]]]]]`,
		`{"a":"https://u:p@h/?access_token=t&x=1"}`,
		`{"a":1} {"b":2}`,
		`"just a string with Bearer abc"`,
		`{"text":"{\"body\":\"{\\\"password\\\":\\\"x\\\"}\"}"}`,
		`{"h":[{"header":"X-Api-Key","value":"v"}],"p":[["Cookie","c"]]}`,
		`{"requestHeaders":{"A":"b"},"envVars":{"C":"d"}}`,
	} {
		f.Add([]byte(s))
	}
	e := New(Config{MaxText: 1 << 20})
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) == 0 {
			return
		}
		got := render1(e, string(body))
		if !json.Valid(body) {
			if !strings.HasPrefix(got, "[body not shown: ") {
				t.Fatalf("invalid JSON shown: %q -> %q", body, got)
			}
			return
		}
		if strings.HasPrefix(got, "[body not shown: ") {
			return // nested deeper than the echo renders
		}
		var v any
		dec := json.NewDecoder(strings.NewReader(got))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("rendered %q as invalid JSON %q: %v", body, got, err)
		}
		var walk func(any)
		walk = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				for k, x := range v {
					if e.Sensitive(k) && x != Masked {
						t.Fatalf("member %q shown as %v in %q", k, x, got)
					}
					walk(x)
				}
			case []any:
				for _, x := range v {
					walk(x)
				}
			case string:
				// JSON quoted inside a string is held to the same rule.
				var inner any
				if json.Unmarshal([]byte(v), &inner) == nil {
					walk(inner)
				}
			}
		}
		walk(v)
	})
}
