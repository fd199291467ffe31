package transport

import (
	"encoding/json"
	"testing"
)

// discardFramer accepts writes and never reads.
type discardFramer struct{ writes [][]byte }

func (f *discardFramer) ReadFrame() ([]byte, error) { select {} }
func (f *discardFramer) WriteFrame(b []byte) error {
	f.writes = append(f.writes, append([]byte(nil), b...))
	return nil
}
func (f *discardFramer) Close() error { return nil }

// FuzzBatch: any batch is either answered with valid JSON or split into
// messages jsonrpc2 can decode; nothing panics.
func FuzzBatch(f *testing.F) {
	for _, s := range []string{
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`[]`, `[1,2]`, `[{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":"x","method":"m","params":{}}]`,
		`[{"jsonrpc":"2.0","id":1,"result":{}}]`, `[{"id":null}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fr := &discardFramer{}
		s := NewStream(fr, nil)
		s.enableTickets()
		s.AllowBatches(true)
		msg, err := s.acceptBatch(trimJSONSpace(b))
		if err != nil {
			t.Fatal(err)
		}
		for msg != nil {
			var v map[string]json.RawMessage
			if json.Unmarshal(msg, &v) != nil {
				t.Fatalf("message for jsonrpc2 is not an object: %s", msg)
			}
			msg = s.popInjected()
		}
		for _, w := range fr.writes {
			if !json.Valid(w) {
				t.Fatalf("invalid JSON written: %s", w)
			}
		}
	})
}
