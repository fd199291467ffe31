package transport

import (
	"io"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/internal/logrec"
)

// queueFramer replays queued frames and records written ones.
type queueFramer struct {
	in      [][]byte
	written [][]byte
}

func (q *queueFramer) ReadFrame() ([]byte, error) {
	if len(q.in) == 0 {
		return nil, io.EOF
	}
	m := q.in[0]
	q.in = q.in[1:]
	return m, nil
}

func (q *queueFramer) WriteFrame(msg []byte) error {
	q.written = append(q.written, msg)
	return nil
}

func (q *queueFramer) Close() error { return nil }

func TestTapFramer(t *testing.T) {
	q := &queueFramer{in: [][]byte{[]byte(`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}`)}}
	sink := &logrec.Sink{}
	f := TapFramer(q, &EchoOptions{Handler: sink, MaxText: 120})
	sent := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":{"password":"hunter2","text":"` + strings.Repeat("z", 100) + `"}}}`
	if err := f.WriteFrame([]byte(sent)); err != nil {
		t.Fatal(err)
	}
	got, err := f.ReadFrame()
	if err != nil || string(got) != `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}` || string(q.written[0]) != sent {
		t.Fatalf("tap changed frames: %q %q %v", got, q.written, err)
	}
	if _, err := f.ReadFrame(); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
	recs := sink.All()
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	s, r := recs[0], recs[1]
	if s["dir"] != "send" || s["rpc"] != "tools/call" || s["id"] != "2" || strings.Contains(s["msg"], "hunter2") || !strings.Contains(s["msg"], `"password":"[masked]"`) || !strings.Contains(s["msg"], "…[truncated ") {
		t.Fatalf("send record %v", s)
	}
	if r["dir"] != "recv" || r["outcome"] != "error -32601" || r["id"] != "2" {
		t.Fatalf("recv record %v", r)
	}
}

// A frame that is not JSON (here, JSON behind a UTF-8 byte order mark) is
// logged as its length and a note, never as its bytes.
func TestTapFramerNeverShowsUnparsedFrames(t *testing.T) {
	msg := "\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":1,"method":"x","params":{"password":"hunter2"}}`
	sink := &logrec.Sink{}
	f := TapFramer(&queueFramer{in: [][]byte{[]byte(msg)}}, &EchoOptions{Handler: sink})
	if _, err := f.ReadFrame(); err != nil {
		t.Fatal(err)
	}
	r := sink.All()[0]
	if strings.Contains(r["msg"], "hunter2") || !strings.Contains(r["msg"], "byte order mark") {
		t.Errorf("record %v", r)
	}
}
