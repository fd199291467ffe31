package mcphttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/winbridge/winbridge/transport"
)

// The tests of RoundTrip, the path a transport.Conn takes for its calls
// over a Framer: a hostile or broken server must fail the call at once
// with a useful error, never leave it to its deadline, and never leak.

// directLeaks fails the test if goroutines it started outlive it. It must
// be called first, so that its cleanup runs last.
func directLeaks(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				t.Errorf("leaked goroutines: %d before, %d after\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
				return
			}
			time.Sleep(2 * time.Millisecond) // polling under a deadline
		}
	})
}

// directConn returns a Conn over a Framer to a server with handler h.
func directConn(t *testing.T, h http.HandlerFunc, fopts *ClientOptions, copts *transport.ConnOptions, ch transport.Handler) (*transport.Conn, *Framer) {
	t.Helper()
	ts := httptest.NewServer(h)
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		hc.CloseIdleConnections()
	})
	if fopts == nil {
		fopts = &ClientOptions{}
	}
	fopts.Client = hc
	f := newTestFramer(t, ts.URL, fopts)
	if copts == nil {
		copts = &transport.ConnOptions{}
	}
	copts.Logger = quiet
	c := transport.NewConn(transport.NewStream(f, &transport.StreamOptions{Logger: quiet}), ch, copts)
	t.Cleanup(func() { _ = c.Close() })
	return c, f
}

// requestID reads the id of a POSTed request.
func requestID(r *http.Request) string {
	id, _ := requestOf(r)
	return id
}

// requestOf reads the id and method of a POSTed request.
func requestOf(r *http.Request) (id, method string) {
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.NewDecoder(r.Body).Decode(&env)
	return string(env.ID), env.Method
}

func answerJSON(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(body))
}

func answerSSE(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		fmt.Fprintf(w, "data: %s\n\n", e)
	}
}

func TestDirectCall(t *testing.T) {
	directLeaks(t)
	var posts atomic.Int32
	c, _ := directConn(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "no", http.StatusMethodNotAllowed)
			return
		}
		posts.Add(1)
		id, method := requestOf(r)
		switch method {
		case "tools/call":
			answerSSE(w, `{"jsonrpc":"2.0","id":`+id+`,"result":{"n":2}}`)
		default:
			answerJSON(w, `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":-32000,"message":"nope","data":{"b":1, "a":[ 2 ]}}}`)
		}
	}, nil, nil, nil)
	var got struct{ N int }
	if err := c.Call(context.Background(), "tools/call", map[string]any{"name": "x"}, &got); err != nil || got.N != 2 {
		t.Fatalf("Call: %+v, %v", got, err)
	}
	call := c.Go(context.Background(), "ping", nil)
	if call.ID().IsZero() {
		t.Fatal("Go: the call has no id")
	}
	_, err := call.Raw()
	var e *transport.Error
	if !errors.As(err, &e) || e.Code != -32000 || string(e.Data) != `{"b":1, "a":[ 2 ]}` {
		t.Fatalf("Go: %v (%+v); want the error with its data byte for byte", err, e)
	}
	if posts.Load() != 2 {
		t.Fatalf("%d POSTs, want 2", posts.Load())
	}
}

// Responses that are not the answer to the call fail it at once.
func TestDirectHostileAnswers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply func(w http.ResponseWriter, id string)
		want  string
	}{
		{"wrong id", func(w http.ResponseWriter, id string) {
			answerJSON(w, `{"jsonrpc":"2.0","id":99,"result":{}}`)
		}, "answers id 99"},
		{"string id", func(w http.ResponseWriter, id string) {
			answerJSON(w, `{"jsonrpc":"2.0","id":"`+id+`","result":{}}`)
		}, "answers id"},
		{"invalid JSON", func(w http.ResponseWriter, id string) {
			answerJSON(w, `{"jsonrpc":"2.0","id":`+id+`,"result":{`)
		}, "parse error"},
		{"invalid UTF-8", func(w http.ResponseWriter, id string) {
			answerJSON(w, `{"jsonrpc":"2.0","id":`+id+`,"result":"`+"\xff"+`"}`)
		}, "not valid UTF-8"},
		{"invalid UTF-8 event", func(w http.ResponseWriter, id string) {
			answerSSE(w, `{"jsonrpc":"2.0","id":`+id+`,"result":"`+"\xff"+`"}`)
		}, "not valid UTF-8"},
		{"a request", func(w http.ResponseWriter, id string) {
			answerJSON(w, `{"jsonrpc":"2.0","id":`+id+`,"method":"x"}`)
		}, "instead of the response"},
		{"malformed error", func(w http.ResponseWriter, id string) {
			answerJSON(w, `{"jsonrpc":"2.0","id":`+id+`,"error":{"code":"x"}}`)
		}, "malformed error object"},
		{"both", func(w http.ResponseWriter, id string) {
			answerJSON(w, `{"jsonrpc":"2.0","id":`+id+`,"result":1,"error":{"code":1,"message":"m"}}`)
		}, "both"},
		{"huge body", func(w http.ResponseWriter, id string) {
			answerJSON(w, `{"jsonrpc":"2.0","id":`+id+`,"result":"`+strings.Repeat("x", 5000)+`"}`)
		}, "response too large"},
		{"huge event", func(w http.ResponseWriter, id string) {
			answerSSE(w, `{"jsonrpc":"2.0","id":`+id+`,"result":"`+strings.Repeat("x", 5000)+`"}`)
		}, "response too large"},
		{"someone else's answer, then the end", func(w http.ResponseWriter, id string) {
			answerSSE(w, `{"jsonrpc":"2.0","id":12345,"result":{}}`)
		}, "ended before the response"},
		{"empty stream", func(w http.ResponseWriter, id string) {
			answerSSE(w)
		}, "ended before the response"},
		{"500", func(w http.ResponseWriter, id string) {
			http.Error(w, "boom", http.StatusInternalServerError)
		}, "HTTP 500"},
		{"400 with a JSON-RPC error", func(w http.ResponseWriter, id string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"bad params"}}`))
		}, "bad params"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			directLeaks(t)
			c, _ := directConn(t, func(w http.ResponseWriter, r *http.Request) {
				tc.reply(w, requestID(r))
			}, &ClientOptions{MaxMessageSize: 4096}, nil, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := c.Call(ctx, "tools/call", map[string]any{"name": "x"}, nil)
			var e *transport.Error
			if !errors.As(err, &e) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Call: %v; want a *transport.Error saying %q", err, tc.want)
			}
			if c.Err() != nil {
				t.Fatalf("the connection closed: %v", c.Err())
			}
		})
	}
}

// Two answers on the request's stream: the first counts, the second is
// not read.
func TestDirectTwoAnswers(t *testing.T) {
	directLeaks(t)
	c, _ := directConn(t, func(w http.ResponseWriter, r *http.Request) {
		id := requestID(r)
		answerSSE(w, `{"jsonrpc":"2.0","id":`+id+`,"result":1}`, `{"jsonrpc":"2.0","id":`+id+`,"result":2}`)
	}, nil, nil, nil)
	for range 3 {
		var n int
		if err := c.Call(context.Background(), "ping", nil, &n); err != nil || n != 1 {
			t.Fatalf("Call: %d, %v; want 1", n, err)
		}
	}
}

// A notification that comes before the response on the request's stream
// is handled before the call returns, as it was when the response went
// through the read loop.
func TestDirectOrdering(t *testing.T) {
	directLeaks(t)
	var mu sync.Mutex
	var seen []string
	h := transport.HandlerFunc(func(ctx context.Context, c *transport.Conn, r *transport.Request) {
		// Slow, so that a call that did not wait for the read loop
		// would return first.
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		seen = append(seen, string(r.Params))
		mu.Unlock()
	})
	c, _ := directConn(t, func(w http.ResponseWriter, r *http.Request) {
		id := requestID(r)
		answerSSE(w,
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"n":1}}`,
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"n":2}}`,
			`{"jsonrpc":"2.0","id":`+id+`,"result":{}}`)
	}, nil, nil, h)
	for i := range 3 {
		if err := c.Call(context.Background(), "tools/call", map[string]any{"name": "x"}, nil); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		n := len(seen)
		mu.Unlock()
		if n != 2*(i+1) {
			t.Fatalf("after call %d the handler had seen %d notifications, want %d", i+1, n, 2*(i+1))
		}
	}
}

// A server that never answers: the call ends with its timeout or its
// context, promptly, and the peer is told through Abandoned.
func TestDirectHang(t *testing.T) {
	directLeaks(t)
	release := make(chan struct{})
	abandoned := make(chan string, 4)
	arrived := make(chan struct{}, 4)
	c, _ := directConn(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			return
		}
		arrived <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}, nil, &transport.ConnOptions{
		Timeout: 50 * time.Millisecond,
		Abandoned: func(c *transport.Conn, id transport.ID, method string, cause error) {
			abandoned <- method + " " + id.String()
		},
	}, nil)
	defer close(release)
	err := c.Call(context.Background(), "slow", nil, nil)
	if !errors.Is(err, transport.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Call: %v; want ErrTimeout", err)
	}
	if got := <-abandoned; !strings.HasPrefix(got, "slow ") {
		t.Fatalf("abandoned %q", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	call := c.Go(ctx, "slow2", nil)
	<-arrived // the first call's
	<-arrived
	cancel()
	<-call.Done()
	if _, err := call.Raw(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Go: %v; want context.Canceled", err)
	}
	if got := <-abandoned; got != "slow2 "+call.ID().String() {
		t.Fatalf("abandoned %q, want slow2 %s", got, call.ID())
	}
}

// Close during a call fails it with ErrClosed at once.
func TestDirectCloseDuringCall(t *testing.T) {
	directLeaks(t)
	arrived := make(chan struct{}, 1)
	c, _ := directConn(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			return
		}
		t.Logf("POST %s", requestID(r))
		select {
		case arrived <- struct{}{}:
		default:
		}
		<-r.Context().Done()
	}, nil, nil, nil)
	cause := errors.New("the test is done")
	go func() {
		<-arrived
		_ = c.CloseWithError(cause)
	}()
	err := c.Call(context.Background(), "slow", nil, nil)
	if !errors.Is(err, transport.ErrClosed) || !errors.Is(err, cause) {
		t.Fatalf("Call: %v; want ErrClosed with its cause", err)
	}
	if err := c.Call(context.Background(), "after", nil, nil); !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("Call after Close: %v; want ErrClosed", err)
	}
}

// A 404 in a session ends the connection with ErrSessionExpired; a 202 is
// answered on the GET stream.
func TestDirectSession(t *testing.T) {
	directLeaks(t)
	answers := make(chan string, 1)
	var gone atomic.Bool
	c, f := directConn(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			for {
				select {
				case a := <-answers:
					fmt.Fprintf(w, "data: %s\n\n", a)
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
					return
				}
			}
		case http.MethodDelete:
			return
		}
		id := requestID(r)
		switch {
		case id == "":
			w.WriteHeader(http.StatusAccepted) // a notification
		case r.Header.Get(HeaderSessionID) == "":
			w.Header().Set(HeaderSessionID, "s1")
			answerJSON(w, `{"jsonrpc":"2.0","id":`+id+`,"result":{"protocolVersion":"2025-11-25"}}`)
		case gone.Load():
			http.NotFound(w, r)
		default:
			answers <- `{"jsonrpc":"2.0","id":` + id + `,"result":"elsewhere"}`
			w.WriteHeader(http.StatusAccepted)
		}
	}, nil, nil, nil)
	if err := c.Call(context.Background(), "initialize", map[string]any{}, nil); err != nil {
		t.Fatal(err)
	}
	if f.SessionID() != "s1" || f.ProtocolVersion() != "2025-11-25" {
		t.Fatalf("session %q, version %q", f.SessionID(), f.ProtocolVersion())
	}
	var got string
	if err := c.Call(context.Background(), "tools/list", nil, &got); err != nil || got != "elsewhere" {
		t.Fatalf("Call answered on the GET stream: %q, %v", got, err)
	}
	gone.Store(true)
	err := c.Call(context.Background(), "tools/list", nil, nil)
	if !errors.Is(err, ErrSessionExpired) || !errors.Is(err, transport.ErrClosed) {
		t.Fatalf("Call after 404: %v; want ErrSessionExpired and ErrClosed", err)
	}
	<-c.Done()
	if err := c.Err(); !errors.Is(err, ErrSessionExpired) {
		t.Fatalf("Conn.Err: %v; want ErrSessionExpired", err)
	}
}

// Many calls at once: each is answered with its own response.
func TestDirectConcurrent(t *testing.T) {
	directLeaks(t)
	c, _ := directConn(t, func(w http.ResponseWriter, r *http.Request) {
		id := requestID(r)
		answerSSE(w, `{"jsonrpc":"2.0","method":"notifications/message","params":{}}`, `{"jsonrpc":"2.0","id":`+id+`,"result":`+id+`}`)
	}, nil, nil, nil)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 20 {
				call := c.Go(context.Background(), "ping", nil)
				var n int
				if err := call.Result(&n); err != nil || transport.IntID(uint64(n)) != call.ID() {
					t.Errorf("call %s: %d, %v", call.ID(), n, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func FuzzAnswersHead(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"a":"`,
		`{"id":1,"error":`,
		`{"id":"1","result":1}`,
		`{"method":"x","id":1,"result":`,
		`[`,
		``,
	} {
		f.Add([]byte(s))
	}
	id := transport.IntID(1)
	f.Fuzz(func(t *testing.T, h []byte) {
		got := answersHead(h, id)
		if got && !strings.Contains(string(h), "1") {
			t.Fatalf("answersHead(%q) without the id", h)
		}
	})
}

// An SSE stream that breaks before the response is resumed with
// Last-Event-ID, and the response read there; one that is gone (410)
// fails the call with the server's reason.
func TestDirectResume(t *testing.T) {
	directLeaks(t)
	var lastIDs sync.Map
	var gone atomic.Bool
	c, _ := directConn(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodDelete:
			return
		case http.MethodGet:
			last := r.Header.Get(HeaderLastEventID)
			if last == "" {
				http.Error(w, "no", http.StatusMethodNotAllowed)
				return
			}
			if gone.Load() {
				http.Error(w, "stream dropped", http.StatusGone)
				return
			}
			id, _ := lastIDs.Load(last)
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "id: %s-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":\"resumed\"}\n\n", last, id)
			return
		}
		id, method := requestOf(r)
		if method == "initialize" {
			w.Header().Set(HeaderSessionID, "s1")
			answerJSON(w, `{"jsonrpc":"2.0","id":`+id+`,"result":{"protocolVersion":"2025-11-25"}}`)
			return
		}
		if id == "" {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		ev := "ev" + id
		lastIDs.Store(ev, id)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "retry: 1\nid: %s\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n", ev)
	}, &ClientOptions{NoListen: true}, nil, nil)
	if err := c.Call(context.Background(), "initialize", map[string]any{}, nil); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := c.Call(context.Background(), "tools/call", map[string]any{"name": "x"}, &got); err != nil || got != "resumed" {
		t.Fatalf("Call: %q, %v; want the response from the resumed stream", got, err)
	}
	gone.Store(true)
	err := c.Call(context.Background(), "tools/call", map[string]any{"name": "x"}, nil)
	var e *transport.Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), "stream dropped") {
		t.Fatalf("Call: %v; want the 410's reason as the call's error", err)
	}
}

// errRefusedHere is what failingTransport fails every request with.
var errRefusedHere = errors.New("refused by the test's RoundTripper")

type failingTransport struct{}

func (failingTransport) RoundTrip(*http.Request) (*http.Response, error) { return nil, errRefusedHere }

// A POST that fails before any answer (the http.Client's error: a dial
// error, an oauth.Transport's refusal) fails the call with that error,
// which the caller can branch on, not with a JSON-RPC error no server
// sent.
func TestDirectPostFailureKeepsItsError(t *testing.T) {
	directLeaks(t)
	f := newTestFramer(t, "http://127.0.0.1:9/mcp", &ClientOptions{Client: &http.Client{Transport: failingTransport{}}})
	c := transport.NewConn(transport.NewStream(f, &transport.StreamOptions{Logger: quiet}), nil, &transport.ConnOptions{Logger: quiet})
	defer c.Close()
	err := c.Call(context.Background(), "tools/list", nil, nil)
	var e *transport.Error
	if !errors.Is(err, errRefusedHere) || errors.As(err, &e) || !strings.Contains(err.Error(), "POST failed") {
		t.Fatalf("Call through a failing http.Client: %v, want its error wrapped, not a *transport.Error", err)
	}
}
