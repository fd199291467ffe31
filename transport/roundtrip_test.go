package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
)

// fakeRT is a RoundTripper that answers each request with answer(msg).
// ReadFrame blocks until Close.
type fakeRT struct {
	answer func(msg []byte) ([]byte, error)
	mu     sync.Mutex
	sent   []string
	done   chan struct{}
	once   sync.Once
}

func newFakeRT(answer func(msg []byte) ([]byte, error)) *fakeRT {
	return &fakeRT{answer: answer, done: make(chan struct{})}
}

func (f *fakeRT) ReadFrame() ([]byte, error) {
	<-f.done
	return nil, io.EOF
}

func (f *fakeRT) WriteFrame(msg []byte) error { return nil }

func (f *fakeRT) Close() error {
	f.once.Do(func() { close(f.done) })
	return nil
}

func (f *fakeRT) RoundTrip(ctx context.Context, msg []byte) ([]byte, error) {
	f.mu.Lock()
	f.sent = append(f.sent, string(msg))
	f.mu.Unlock()
	return f.answer(msg)
}

// echoID answers with the request's id and the given members.
func echoID(rest string) func([]byte) ([]byte, error) {
	return func(msg []byte) ([]byte, error) {
		var env struct{ ID json.RawMessage }
		_ = json.Unmarshal(msg, &env)
		return []byte(`{"jsonrpc":"2.0","id":` + string(env.ID) + `,` + rest + `}`), nil
	}
}

func TestRoundTripperCall(t *testing.T) {
	checkLeaks(t)
	rt := newFakeRT(echoID(`"result":{"ok":true}`))
	c := NewConn(NewStream(rt, nil), nil, nil)
	defer c.Close()
	var got struct{ OK bool }
	if err := c.Call(context.Background(), "a/b", json.RawMessage("{\n\"x\": \"\\u00e9\"}"), &got); err != nil || !got.OK {
		t.Fatalf("Call: %+v, %v", got, err)
	}
	call := c.Go(context.Background(), "c\"d", nil)
	if _, err := call.Raw(); err != nil {
		t.Fatal(err)
	}
	rt.mu.Lock()
	sent := rt.sent
	rt.mu.Unlock()
	want := []string{
		`{"jsonrpc":"2.0","id":1,"method":"a/b","params":{"x":"\u00e9"}}`,
		`{"jsonrpc":"2.0","id":` + call.ID().String() + `,"method":"c\"d"}`,
	}
	if strings.Join(sent, "\n") != strings.Join(want, "\n") {
		t.Fatalf("sent\n%s\nwant\n%s", strings.Join(sent, "\n"), strings.Join(want, "\n"))
	}
	// Invalid params never reach the framer.
	if err := c.Call(context.Background(), "x", json.RawMessage("{"), nil); err == nil {
		t.Fatal("Call with invalid params: no error")
	}
}

func TestRoundTripperErrors(t *testing.T) {
	checkLeaks(t)
	rt := newFakeRT(echoID(`"error":{"code":-1,"message":"m","data":[1, 2]}`))
	c := NewConn(NewStream(rt, nil), nil, nil)
	err := c.Call(context.Background(), "x", nil, nil)
	var e *Error
	if !errors.As(err, &e) || e.Code != -1 || string(e.Data) != "[1, 2]" {
		t.Fatalf("Call: %v; want the error with its data byte for byte", err)
	}
	cause := errors.New("gone away")
	rt.answer = func([]byte) ([]byte, error) { return nil, ErrClosed }
	_ = c.CloseWithError(cause)
	if err := c.Call(context.Background(), "x", nil, nil); !errors.Is(err, ErrClosed) || !errors.Is(err, cause) {
		t.Fatalf("Call after close: %v; want ErrClosed and its cause", err)
	}
}

func TestRoundTripperTap(t *testing.T) {
	checkLeaks(t)
	var log bytes.Buffer
	rt := newFakeRT(echoID(`"result":"pong"`))
	tf := TapFramer(rt, &EchoOptions{Writer: &log})
	if _, ok := tf.(RoundTripper); !ok {
		t.Fatal("TapFramer hides RoundTrip")
	}
	if _, ok := TapFramer(NewLineFramer(readOnly{}, 0), nil).(RoundTripper); ok {
		t.Fatal("TapFramer of a line framer claims RoundTrip")
	}
	c := NewConn(NewStream(tf, nil), nil, nil)
	defer c.Close()
	var got string
	if err := c.Call(context.Background(), "ping", nil, &got); err != nil || got != "pong" {
		t.Fatalf("Call: %q, %v", got, err)
	}
	if s := log.String(); !strings.Contains(s, "send") || !strings.Contains(s, "recv") {
		t.Fatalf("the tap logged %q; want both messages", s)
	}
}
