package mcphttp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// The requests the client makes from its template (request.go) and the
// legacy POST header it shares between requests: what reaches the server
// is what http.NewRequestWithContext and a header of each request's own
// sent, redirects and cookies included.

// legacyServer answers initialize with session "s1" and version
// 2025-11-25, and every other request with its id, after check.
func legacyServer(t *testing.T, check func(r *http.Request, body []byte) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("reading the request: %v", err)
			return
		}
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal(body, &env); err != nil {
			http.Error(w, "bad body "+string(body), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if env.Method == "initialize" {
			w.Header().Set(HeaderSessionID, "s1")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25"}}`, env.ID)
			return
		}
		if err := check(r, body); err != nil {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":%q}}`, env.ID, err.Error())
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, env.ID)
	}
}

// initLegacy initializes f's session.
func initLegacy(t *testing.T, f *Framer) {
	t.Helper()
	resp, err := f.RoundTrip(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`))
	if err != nil || !strings.Contains(string(resp), `"result"`) {
		t.Fatalf("initialize: %s, %v", resp, err)
	}
	if f.SessionID() != "s1" {
		t.Fatalf("session %q", f.SessionID())
	}
}

// callOK makes the call id and fails the test unless it succeeds.
func callOK(t *testing.T, f *Framer, id int) {
	t.Helper()
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`, id)
	resp, err := f.RoundTrip(context.Background(), []byte(msg))
	if err != nil {
		t.Errorf("call %d: %v", id, err)
		return
	}
	if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id); string(resp) != want {
		t.Errorf("call %d: %s, want %s", id, resp, want)
	}
}

// checkLegacyHeaders checks what every legacy POST carries.
func checkLegacyHeaders(r *http.Request, body []byte) error {
	for k, want := range map[string]string{
		HeaderSessionID:       "s1",
		HeaderProtocolVersion: "2025-11-25",
		"Accept":              "application/json, text/event-stream",
		"Content-Type":        "application/json",
		"Authorization":       "Bearer t",
	} {
		if got := r.Header.Values(k); len(got) != 1 || got[0] != want {
			return fmt.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	if r.ContentLength != int64(len(body)) {
		return fmt.Errorf("Content-Length %d for a body of %d bytes", r.ContentLength, len(body))
	}
	return nil
}

// Concurrent calls of a legacy session share one header map: each request
// carries the session, the version and the caller's headers, and nothing
// races (go test -race).
func TestSharedPostHeaderConcurrent(t *testing.T) {
	directLeaks(t)
	ts := httptest.NewServer(legacyServer(t, checkLegacyHeaders))
	defer ts.Close()
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	f := newTestFramer(t, ts.URL, &ClientOptions{Client: hc, NoListen: true, Header: http.Header{"Authorization": {"Bearer t"}}})
	defer f.Close()
	if !f.shareHeader {
		t.Fatal("a client over net/http's Transport without a jar does not share the header")
	}
	initLegacy(t, f)
	var wg sync.WaitGroup
	for i := range 32 {
		wg.Go(func() {
			for j := range 4 {
				callOK(t, f, 100+i*10+j)
			}
		})
	}
	wg.Wait()
}

// mutatingTransport sets a header on each request it is given, as a
// careless RoundTripper does, and counts the requests.
type mutatingTransport struct {
	rt http.RoundTripper
	mu sync.Mutex
	n  int
}

func (m *mutatingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	m.mu.Lock()
	m.n++
	n := m.n
	m.mu.Unlock()
	r.Header.Set("X-Request", fmt.Sprint(n))
	return m.rt.RoundTrip(r)
}

// A RoundTripper of the caller's own, which may change the request's
// header, and a cookie jar, which does, get a header of each request's
// own: concurrent calls neither race nor see each other's changes.
func TestHeaderNotSharedWhenChanged(t *testing.T) {
	directLeaks(t)
	seen := sync.Map{}
	ts := httptest.NewServer(legacyServer(t, func(r *http.Request, body []byte) error {
		if err := checkLegacyHeaders(r, body); err != nil {
			return err
		}
		if got := r.Header.Values("X-Request"); len(got) != 1 {
			return fmt.Errorf("X-Request %q", got)
		} else if _, dup := seen.LoadOrStore(got[0], true); dup {
			return fmt.Errorf("X-Request %s seen twice", got[0])
		}
		if c, err := r.Cookie("k"); err != nil || c.Value != "v" {
			return fmt.Errorf("cookie: %v, %v", c, err)
		}
		return nil
	}))
	defer ts.Close()
	base := &http.Transport{}
	defer base.CloseIdleConnections()
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Transport: &mutatingTransport{rt: base}, Jar: jar}
	u, _ := http.NewRequest(http.MethodGet, ts.URL, nil)
	jar.SetCookies(u.URL, []*http.Cookie{{Name: "k", Value: "v"}})
	f := newTestFramer(t, ts.URL, &ClientOptions{Client: hc, NoListen: true, Header: http.Header{"Authorization": {"Bearer t"}}})
	defer f.Close()
	if f.shareHeader {
		t.Fatal("the header is shared through a RoundTripper of the caller's")
	}
	initLegacy(t, f)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for j := range 4 {
				callOK(t, f, 100+i*10+j)
			}
		})
	}
	wg.Wait()
}

func TestCanShareHeader(t *testing.T) {
	jar, _ := cookiejar.New(nil)
	for _, tc := range []struct {
		name string
		c    *http.Client
		want bool
	}{
		{"default transport", &http.Client{}, true},
		{"net/http Transport", &http.Client{Transport: &http.Transport{}}, true},
		{"own RoundTripper", &http.Client{Transport: &mutatingTransport{rt: http.DefaultTransport}}, false},
		{"cookie jar", &http.Client{Jar: jar}, false},
	} {
		if got := canShareHeader(tc.c); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A redirect of a POST that keeps its method (307, 308) sends the whole
// message again (GetBody), with its length; the Host is the URL's.
func TestRequestRedirectResendsBody(t *testing.T) {
	for _, code := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			directLeaks(t)
			var host string
			mux := http.NewServeMux()
			mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				http.Redirect(w, r, "/mcp", code)
			})
			mux.HandleFunc("/mcp", legacyServer(t, func(r *http.Request, body []byte) error {
				if r.Host != host {
					return fmt.Errorf("Host %q, want %q", r.Host, host)
				}
				return checkLegacyHeaders(r, body)
			}))
			ts := httptest.NewServer(mux)
			defer ts.Close()
			host = strings.TrimPrefix(ts.URL, "http://")
			hc := &http.Client{Transport: &http.Transport{}}
			defer hc.CloseIdleConnections()
			f := newTestFramer(t, ts.URL+"/old", &ClientOptions{Client: hc, NoListen: true, Header: http.Header{"Authorization": {"Bearer t"}}})
			defer f.Close()
			initLegacy(t, f)
			callOK(t, f, 2)
			callOK(t, f, 3)
		})
	}
}

// An endpoint with an empty port is sent as NewRequest sent it: without
// the colon.
func TestRequestEmptyPort(t *testing.T) {
	f := newTestFramer(t, "http://example.com:/mcp", &ClientOptions{NoListen: true})
	defer f.Close()
	req := f.newRequest(context.Background(), http.MethodPost, &outMsg{raw: []byte(`{}`)})
	if req.URL.Host != "example.com" || req.Host != "" {
		t.Errorf("URL.Host %q, Host %q", req.URL.Host, req.Host)
	}
	if req.URL == f.endpoint.URL {
		t.Error("the request shares the template's URL")
	}
	b, err := req.GetBody()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(b)
	all, _ := io.ReadAll(req.Body)
	if string(got) != `{}` || string(all) != `{}` || req.ContentLength != 2 {
		t.Errorf("GetBody %q, Body %q, ContentLength %d", got, all, req.ContentLength)
	}
}

// Stateless calls share a header per method and name: concurrent calls
// of many tools (more than the framer keeps) each carry their own
// Mcp-Method and Mcp-Name, the name encoded where HTTP cannot carry it.
func TestSharedStatelessHeaders(t *testing.T) {
	directLeaks(t)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&env); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		want := map[string]string{
			HeaderMethod:          env.Method,
			HeaderName:            encodeHeaderValue(env.Params.Name),
			HeaderProtocolVersion: "2026-07-28",
			"Authorization":       "Bearer t",
		}
		for k, v := range want {
			if got := r.Header.Values(k); len(got) != 1 || got[0] != v {
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"%s: %q, want %q"}}`, env.ID, k, got, v)
				return
			}
		}
		if r.Header.Get(HeaderSessionID) != "" {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"a session id"}}`, env.ID)
			return
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, env.ID)
	}))
	defer ts.Close()
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	f := newTestFramer(t, ts.URL, &ClientOptions{Client: hc, Header: http.Header{"Authorization": {"Bearer t"}}})
	defer f.Close()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 3 * maxSharedHeaders / 8 {
				name, _ := json.Marshal(fmt.Sprintf("tool-%d é", j%(maxSharedHeaders+9)))
				id := 1000 + i*1000 + j
				msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%s,"arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, id, name)
				resp, err := f.RoundTrip(context.Background(), []byte(msg))
				if want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id); err != nil || string(resp) != want {
					t.Errorf("call %d: %s, %v", id, resp, err)
				}
			}
		})
	}
	wg.Wait()
	f.mu.Lock()
	n := len(f.headers)
	f.mu.Unlock()
	if n > maxSharedHeaders || n == 0 {
		t.Errorf("%d shared headers kept, at most %d", n, maxSharedHeaders)
	}
}

// Reading a stateless tool call allocates its outMsg, id and name only:
// its method and version are the package's strings, and the long keys of
// its _meta are compared as bytes.
func TestPeekOutAllocs(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{` +
		`"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	var m *outMsg
	if got := testing.AllocsPerRun(100, func() { m = peekOut(msg) }); got > 3 {
		t.Errorf("peekOut: %v allocations, want 3", got)
	}
	if m.method != "tools/call" || m.version != "2026-07-28" || m.name != "echo" || !m.hasName {
		t.Errorf("%+v", m)
	}
	// Escaped, they are decoded as before.
	m = peekOut([]byte(`{"id":1,"method":"tools\/call","params":{"name":"e","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-2\u0038"}}}`))
	if m.method != "tools/call" || m.version != "2026-07-28" {
		t.Errorf("escaped: %+v", m)
	}
}
