package mcphttp

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/internal/logrec"
	"github.com/winbridge/winbridge/transport"
)

// serveOnce runs h for one POST of body and returns the response and its
// body; the server is closed before returning, so the echo has logged.
func serveOnce(t *testing.T, h http.Handler, body string, hdr http.Header) (*http.Response, []byte) {
	t.Helper()
	ts := httptest.NewServer(h)
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
	for k, v := range hdr {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	ts.Close()
	return resp, b
}

func jsonHandler(body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Set-Cookie", "session=s3cr3t-cookie")
		w.Header().Set("X-Trace", "t-1")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, body)
	})
}

func TestEchoSummaryAndTruncation(t *testing.T) {
	long := strings.Repeat("x", 5000)
	respBody := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + long + `"}]}}`
	sink := &logrec.Sink{}
	_, _ = serveOnce(t, EchoHandler(jsonHandler(respBody), &transport.EchoOptions{Handler: sink, MaxText: 100}),
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"}}`, http.Header{"Content-Type": {"application/json"}})
	recs := sink.All()
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	r := recs[0]
	if r["http"] != "POST /mcp" || r["status"] != "200" || r["rpc"] != "tools/call" || r["id"] != "7" || r["outcome"] != "result" || r["dur"] == "" {
		t.Fatalf("summary %v", r)
	}
	want := "…[truncated " + strconv.Itoa(len(respBody)-100) + " bytes]"
	if got := r["resp.body"]; !strings.HasSuffix(got, want) || !strings.HasPrefix(got, respBody[:100]) {
		t.Fatalf("resp.body %q, want the first 100 bytes and %q", got, want)
	}
	if r["req.body"] != `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"}}` {
		t.Fatalf("req.body %q", r["req.body"])
	}
}

// Bodies beyond the capture limit are cut too, counting what was never
// captured.
func TestEchoCaptureLimit(t *testing.T) {
	respBody := `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"` + strings.Repeat("y", 300) + `"}}`
	sink := &logrec.Sink{}
	resp, got := serveOnce(t, EchoHandler(jsonHandler(respBody), &transport.EchoOptions{Handler: sink, MaxText: 1000, MaxCapture: 64}), `{"jsonrpc":"2.0","id":1,"method":"x"}`, nil)
	if string(got) != respBody || resp.StatusCode != 200 {
		t.Fatalf("the echo changed the response: %q", got)
	}
	r := sink.All()[0]
	if !strings.HasSuffix(r["resp.body"], "…[truncated "+strconv.Itoa(len(respBody)-64)+" bytes]") {
		t.Fatalf("resp.body %q", r["resp.body"])
	}
}

func TestEchoMasks(t *testing.T) {
	secrets := []string{"Bearer abc.def", "c00kie", "k-123", "proxy-pw", "s1", "s2", "s3", "s4", "s5", "s3cr3t-cookie", "tk-9"}
	reqBody := `{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{"name":"login","arguments":{"api_key":"s1","password":"s2","nested":{"accessToken":"s3","list":[{"client_secret":{"deep":"s4"}}]},"apiKey":5,"user":"ada"},"_meta":{"progressToken":"p-1"}}}`
	respBody := `{"jsonrpc":"2.0","id":"q","result":{"refresh_token":"tk-9","maxTokens":12,"ok":true,"x":{"Password":"s5"}}}`
	sink := &logrec.Sink{}
	var out bytes.Buffer
	hdr := http.Header{
		"Authorization":       {"Bearer abc.def"},
		"Cookie":              {"c00kie"},
		"X-Api-Key":           {"k-123"},
		"Proxy-Authorization": {"proxy-pw"},
		"Content-Type":        {"application/json"},
	}
	serveOnce(t, EchoHandler(jsonHandler(respBody), &transport.EchoOptions{Handler: sink}), reqBody, hdr)
	serveOnce(t, EchoHandler(jsonHandler(respBody), &transport.EchoOptions{Writer: &out}), reqBody, hdr)
	r := sink.All()[0]
	all := out.String()
	for _, v := range r {
		all += "\n" + v
	}
	for _, s := range secrets {
		if strings.Contains(all, s) {
			t.Errorf("secret %q leaked:\n%s", s, all)
		}
	}
	for _, want := range []string{"Authorization: [masked]", "Cookie: [masked]", "X-Api-Key: [masked]", "Proxy-Authorization: [masked]"} {
		if !strings.Contains(r["req.headers"], want) {
			t.Errorf("req.headers %q lacks %q", r["req.headers"], want)
		}
	}
	if !strings.Contains(r["resp.headers"], "Set-Cookie: [masked]") || !strings.Contains(r["resp.headers"], "X-Trace: t-1") {
		t.Errorf("resp.headers %q", r["resp.headers"])
	}
	wantReq := `{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{"name":"login","arguments":{"api_key":"[masked]","password":"[masked]","nested":{"accessToken":"[masked]","list":[{"client_secret":"[masked]"}]},"apiKey":"[masked]","user":"ada"},"_meta":{"progressToken":"p-1"}}}`
	if r["req.body"] != wantReq {
		t.Errorf("req.body\n got %s\nwant %s", r["req.body"], wantReq)
	}
	wantResp := `{"jsonrpc":"2.0","id":"q","result":{"refresh_token":"[masked]","maxTokens":12,"ok":true,"x":{"Password":"[masked]"}}}`
	if r["resp.body"] != wantResp {
		t.Errorf("resp.body\n got %s\nwant %s", r["resp.body"], wantResp)
	}
	if !strings.Contains(out.String(), "rpc=tools/call") || !strings.Contains(out.String(), "outcome=result") {
		t.Errorf("text line %q", out.String())
	}
}

// The echo must not change a byte of what passes, JSON or SSE, and SSE
// events must reach the client while the handler is still running.
func TestEchoUnchanged(t *testing.T) {
	t.Run("json", func(t *testing.T) {
		body := `{"jsonrpc":"2.0","id":1,"result":{"token":"keep-me-on-the-wire"}}`
		plain, pb := serveOnce(t, jsonHandler(body), `{"jsonrpc":"2.0","id":1,"method":"x"}`, nil)
		echoed, eb := serveOnce(t, EchoHandler(jsonHandler(body), &transport.EchoOptions{Handler: &logrec.Sink{}}), `{"jsonrpc":"2.0","id":1,"method":"x"}`, nil)
		if !bytes.Equal(pb, eb) || plain.StatusCode != echoed.StatusCode || plain.Header.Get("Set-Cookie") != echoed.Header.Get("Set-Cookie") {
			t.Fatalf("with echo %d %q, without %d %q", echoed.StatusCode, eb, plain.StatusCode, pb)
		}
	})
	t.Run("sse", func(t *testing.T) {
		run := func(wrap func(http.Handler) http.Handler) []byte {
			proceed := make(chan struct{})
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				_, _ = io.WriteString(w, "id: 1_1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n")
				w.(http.Flusher).Flush()
				<-proceed // the client must have the first event before the rest is written
				_, _ = io.WriteString(w, ": keep-alive\n\nid: 1_2\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"secret\":\"x\"}}\n\n")
			})
			ts := httptest.NewServer(wrap(h))
			defer ts.Close()
			resp, err := http.Post(ts.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			var got bytes.Buffer
			for {
				line, err := br.ReadString('\n')
				got.WriteString(line)
				if err != nil {
					t.Fatalf("first event: %v", err)
				}
				if line == "\n" {
					break
				}
			}
			close(proceed)
			rest, _ := io.ReadAll(br)
			got.Write(rest)
			return got.Bytes()
		}
		sink := &logrec.Sink{}
		plain := run(func(h http.Handler) http.Handler { return h })
		echoed := run(func(h http.Handler) http.Handler { return EchoHandler(h, &transport.EchoOptions{Handler: sink}) })
		if !bytes.Equal(plain, echoed) {
			t.Fatalf("with echo %q\nwithout %q", echoed, plain)
		}
		r := sink.All()[0]
		if r["outcome"] != "result" || r["rpc"] != "tools/call" || !strings.Contains(r["resp.body"], `"secret":"[masked]"`) || !strings.Contains(r["resp.body"], " | ") {
			t.Fatalf("sse summary %v", r)
		}
	})
}

// Bodies the echo cannot parse are never shown: a byte order mark before
// the JSON, a form-encoded body. Session ids and every header named like
// a credential are masked.
func TestEchoNeverShowsUnparsedBodiesOrSessionIDs(t *testing.T) {
	const secret = "hunter2-s3cr3t"
	for _, tc := range []struct{ name, body, note string }{
		{"bom", "\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":1,"method":"login","params":{"password":"` + secret + `"}}`, "byte order mark"},
		{"form", "grant_type=password&password=" + secret, "form-encoded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sink := &logrec.Sink{}
			_, _ = serveOnce(t, EchoHandler(jsonHandler(`{"jsonrpc":"2.0","id":1,"result":{}}`), &transport.EchoOptions{Handler: sink}),
				tc.body, http.Header{"Mcp-Session-Id": {secret}, "X-Access-Key": {secret}, "Authentication": {secret}})
			r := sink.All()[0]
			for k, v := range r {
				if strings.Contains(v, secret) {
					t.Errorf("%s shows the secret: %s", k, v)
				}
			}
			if !strings.Contains(r["req.body"], tc.note) || !strings.Contains(r["req.body"], strconv.Itoa(len(tc.body))+" bytes") {
				t.Errorf("req.body %q: want its length and %q", r["req.body"], tc.note)
			}
		})
	}
}
