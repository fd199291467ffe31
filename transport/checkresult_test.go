package transport

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// ConnOptions.CheckResult sees every result before a caller decodes it,
// over a Stream and over a RoundTripper, for Call and Go alike: its error
// fails the call, named after the method, and the connection goes on.
func TestCheckResultSeesEveryResult(t *testing.T) {
	checkLeaks(t)
	errBig := errors.New("too big")
	check := func(method string, result json.RawMessage) error {
		if strings.Contains(string(result), "big") {
			return errBig
		}
		return nil
	}
	// Both peers answer a request with its params.
	echo := HandlerFunc(func(ctx context.Context, c *Conn, r *Request) {
		_ = c.Reply(ctx, r, json.RawMessage(r.Params))
	})
	conns := map[string]func() (*Conn, func()){
		"stream": func() (*Conn, func()) {
			a, b := Pipe(nil)
			server := NewConn(b, echo, nil)
			client := NewConn(a, nil, &ConnOptions{CheckResult: check})
			return client, func() { client.Close(); server.Close() }
		},
		"roundtripper": func() (*Conn, func()) {
			rt := newFakeRT(func(msg []byte) ([]byte, error) {
				var env struct {
					ID     json.RawMessage
					Params json.RawMessage
				}
				_ = json.Unmarshal(msg, &env)
				return []byte(`{"jsonrpc":"2.0","id":` + string(env.ID) + `,"result":` + string(env.Params) + `}`), nil
			})
			client := NewConn(NewStream(rt, nil), nil, &ConnOptions{CheckResult: check})
			return client, func() { client.Close() }
		},
	}
	for name, mk := range conns {
		t.Run(name, func(t *testing.T) {
			c, done := mk()
			defer done()
			ctx := context.Background()
			var v map[string]string
			if err := c.Call(ctx, "m/call", map[string]string{"x": "big"}, &v); !errors.Is(err, errBig) || !strings.HasPrefix(err.Error(), "m/call: ") || v != nil {
				t.Errorf("Call of a refused result: %v, decoded %v", err, v)
			}
			if _, err := c.Go(ctx, "m/go", map[string]string{"x": "big"}).Raw(); !errors.Is(err, errBig) {
				t.Errorf("Go of a refused result: %v", err)
			}
			if err := c.Call(ctx, "m/call", map[string]string{"x": "small"}, &v); err != nil || v["x"] != "small" {
				t.Errorf("Call of a result that passes: %v, %v", err, v)
			}
			if raw, err := c.Go(ctx, "m/go", map[string]string{"x": "small"}).Raw(); err != nil || !strings.Contains(string(raw), "small") {
				t.Errorf("Go of a result that passes: %s, %v", raw, err)
			}
		})
	}
}
