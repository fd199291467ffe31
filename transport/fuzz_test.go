package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/sourcegraph/jsonrpc2"
)

// recordFramer is a Framer that records what is written to it.
type recordFramer struct{ frames [][]byte }

func (f *recordFramer) ReadFrame() ([]byte, error) { return nil, io.EOF }
func (f *recordFramer) WriteFrame(b []byte) error {
	f.frames = append(f.frames, append([]byte(nil), b...))
	return nil
}
func (f *recordFramer) Close() error { return nil }

var envelopeSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":"\u00e9\n","method":"a","params":{"x":[1,2]}}`,
	`{"jsonrpc":"2.0","id":-18446744073709551617,"method":"a","params":[]}`,
	`{"jsonrpc":"2.0","method":"n"}`,
	`{"jsonrpc":"2.0","id":1,"result":{"a":1}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m","data":[1.0]}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":"-1","message":"m"}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","Code":"x"}}`,
	`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}`,
	`{"jsonrpc":"2.0","id":1.5,"method":"a"}`,
	`{"jsonrpc":"2\u002e0","id":1,"method":"a"}`,
	`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
	`[]`, `42`, `"s"`, `null`, ``, " \t", "{\"a\":\"\xff\"}",
	`{"jsonrpc":"2.0","ID":1,"Method":"a"}`,
	`{"jsonrpc":"2.0","id":1,"id":"2","method":"a"}`,
	`{"jsonrpc":"2.0","id":1,"method":"a","result":1}`,
	` {"jsonrpc":"2.0","id":1,"method":"a"} `,
	"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"t\":\"\xff\xfe\"}}",
	"{\"jsonrpc\":\"2.0\",\"result\":\"\xc3\x28\",\"id\":\"\xff\"}",
	"{\"jsonrpc\":\"2.0\",\"id\":3,\"id\":4,\"error\":{\"code\":1,\"message\":\"\xe2\x82\"}}",
	"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"x\",\"result\":\"\xff\"}",
}

// rawMember returns the raw JSON of member name as encoding/json's map
// decoding sees it (the last of duplicates), or nil.
func rawMember(b []byte, name string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m[name]
}

// FuzzDecodeEnvelope checks that no input makes the stream panic, that
// what the stream hands jsonrpc2 always decodes there (else jsonrpc2 would
// close the connection), that replies are single-line JSON, and that a
// request's id comes back byte for byte.
func FuzzDecodeEnvelope(f *testing.F) {
	for _, s := range envelopeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		env, rej := decodeEnvelope(data)
		inputID := rawMember(trimJSONSpace(data), "id")
		if rej != nil {
			if env.kind != 0 {
				t.Fatalf("rejected, yet kind %d", env.kind)
			}
			reply := appendErrorResponse(nil, rej.id, rej.code, rej.message)
			if !json.Valid(reply) || bytes.ContainsAny(reply, "\r\n") {
				t.Fatalf("reply %q is not one line of JSON", reply)
			}
			if !rej.id.IsZero() && rej.id.raw != string(inputID) {
				t.Fatalf("rejection under id %s, input id %s", rej.id.raw, inputID)
			}
			if rej.code != CodeParseError && rej.code != CodeInvalidRequest {
				t.Fatalf("rejection code %d", rej.code)
			}
			return
		}
		if !utf8.Valid(data) || !json.Valid(data) {
			// Only as a response to drop, or as the failure of the call
			// a response answers.
			if dropped := env.kind == 0 && env.note != ""; utf8.Valid(data) || !dropped &&
				(env.kind != kindResponse || !bytes.Equal(env.errObj, invalidUTF8Error) || env.result != nil) {
				t.Fatalf("accepted an input that is not UTF-8 JSON: %q", data)
			}
		}
		if env.kind == 0 {
			return // dropped
		}
		if env.kind != kindNotification && env.id.raw != string(inputID) {
			t.Fatalf("id %s, input id %s", env.id.raw, inputID)
		}
		for _, tickets := range []bool{false, true} {
			rec := &recordFramer{}
			s := NewStream(rec, &StreamOptions{Logger: quiet})
			s.tickets = tickets
			var jid jsonrpc2.ID // the id jsonrpc2 would have sent
			if env.kind == kindResponse {
				if !tickets && json.Unmarshal(inputID, &jid) != nil {
					continue // not an id jsonrpc2 could have sent
				}
				if tickets {
					jid = jsonrpc2.ID{Num: 1}
				}
				s.outgoing[env.id.Key()] = 1
			}
			req, resp, rej := s.accept(data, nil)
			if rej != nil || (req == nil) == (resp == nil) {
				t.Fatalf("accept: %v, %v, %v", rej, req, resp)
			}
			// What jsonrpc2 is handed, as its own encoder writes it.
			msg, err := encodeRPC(req, resp)
			if err != nil {
				t.Fatalf("jsonrpc2 cannot encode what the stream hands it: %v", err)
			}
			switch env.kind {
			case kindRequest, kindNotification:
				var r jsonrpc2.Request
				if err := json.Unmarshal(msg, &r); err != nil {
					t.Fatalf("jsonrpc2 cannot decode %s: %v", msg, err)
				}
				if r.Notif != (env.kind == kindNotification) {
					t.Fatalf("jsonrpc2 sees notification=%v in %s", r.Notif, msg)
				}
				if env.kind == kindNotification {
					continue
				}
				// Reply as jsonrpc2 would; the peer's id comes back.
				if tickets {
					s.stash(9, json.RawMessage(`{"r":1}`), nil)
					err = s.WriteObject(&jsonrpc2.Response{ID: r.ID, Result: rawPtr(`9`)})
				} else {
					err = s.WriteObject(&jsonrpc2.Response{ID: r.ID, Result: rawPtr(`{"r":1}`)})
				}
				if err != nil || len(rec.frames) != 1 {
					t.Fatalf("reply: %v, %d frames", err, len(rec.frames))
				}
				if got := rawMember(rec.frames[0], "id"); string(got) != string(inputID) {
					t.Fatalf("reply id %s, request id %s", got, inputID)
				}
				if got := rawMember(rec.frames[0], "result"); string(got) != `{"r":1}` {
					t.Fatalf("reply result %s", got)
				}
				assertClean(t, s)
			case kindResponse:
				var r jsonrpc2.Response
				if err := json.Unmarshal(msg, &r); err != nil {
					t.Fatalf("jsonrpc2 cannot decode %s: %v", msg, err)
				}
				if r.ID != jid {
					t.Fatalf("jsonrpc2 sees id %v, want %v", r.ID, jid)
				}
				if (r.Error != nil) != (env.errObj != nil) {
					t.Fatalf("error %v, errObj %s", r.Error, env.errObj)
				}
				if env.errObj != nil {
					var e Error
					if err := json.Unmarshal(env.errObj, &e); err != nil {
						t.Fatalf("error object %s does not decode: %v", env.errObj, err)
					}
					var je jsonrpc2.Error
					if err := json.Unmarshal(env.errObj, &je); err != nil {
						t.Fatalf("error object %s does not decode in jsonrpc2: %v", env.errObj, err)
					}
				}
				if tickets {
					if _, ok := s.takeResult(1); !ok {
						t.Fatal("no result kept for the call")
					}
				}
			}
		}
	})
}

func rawPtr(s string) *json.RawMessage {
	r := json.RawMessage(s)
	return &r
}

// FuzzLineFramer checks the framer against a model: split at LF, a CR
// before the LF does not count toward the limit, longer lines are reported
// with their size and head and skipped, JSON white space around a message
// is trimmed and blank lines skipped. Whatever the read buffer size and
// however the input arrives.
func FuzzLineFramer(f *testing.F) {
	f.Add([]byte("a\nb\r\n\n  c  \n"), uint16(10), uint8(0), uint8(0))
	f.Add([]byte("0123456789\r\n0123456789a\nx"), uint16(10), uint8(1), uint8(3))
	f.Add([]byte("0123456789\r"), uint16(10), uint8(2), uint8(1))
	f.Add([]byte("0123456789a"), uint16(10), uint8(0), uint8(1))
	f.Add(bytes.Repeat([]byte("x"), 300), uint16(16), uint8(0), uint8(2))
	f.Add([]byte("{\"id\":1}\r\r\n\t\n"), uint16(7), uint8(5), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, limit uint16, bufSel, chunk uint8) {
		max := int(limit%600) + 1
		bufSize := []int{16, 17, 64, 4096, 64 << 10}[int(bufSel)%5]
		var r io.Reader = bytes.NewReader(data)
		if chunk > 0 {
			r = &chunkReader{data: data, n: int(chunk)}
		}
		fr := newLineFramerSize(readOnly{r}, max, bufSize)

		// The model.
		var want []string
		lines := bytes.Split(data, []byte("\n"))
		if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
			lines = lines[:len(lines)-1] // the input ended with LF
		}
		for _, line := range lines {
			n := len(line)
			if n > 0 && line[n-1] == '\r' {
				n--
			}
			if n > max {
				want = append(want, "!TL"+strconv.Itoa(len(line))+":"+string(line[:min(len(line), headSize)]))
				continue
			}
			if m := trimJSONSpace(line); len(m) > 0 {
				want = append(want, string(m))
			}
		}

		var got []string
		for {
			b, err := fr.ReadFrame()
			var tl *TooLargeError
			switch {
			case err == nil:
				if bytes.IndexByte(b, '\n') >= 0 || len(b) == 0 || len(b) > max+1 {
					t.Fatalf("frame %q", b)
				}
				got = append(got, string(b))
				continue
			case errors.As(err, &tl):
				if tl.Limit != max || tl.Size <= int64(max) || len(tl.Head) > headSize {
					t.Fatalf("TooLargeError %+v", tl)
				}
				got = append(got, "!TL"+strconv.FormatInt(tl.Size, 10)+":"+string(tl.Head))
				continue
			case err == io.EOF:
			default:
				t.Fatalf("ReadFrame: %v", err)
			}
			break
		}
		if len(got) != len(want) {
			t.Fatalf("frames:\n got %q\nwant %q", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("frame %d:\n got %q\nwant %q", i, got[i], want[i])
			}
		}
		if cap(fr.line) > 2*(max+1+bufSize) { // append may double it once
			t.Fatalf("line buffer of %d bytes for a limit of %d", cap(fr.line), max)
		}
	})
}

// chunkReader returns at most n bytes per Read.
type chunkReader struct {
	data []byte
	n    int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.data)
	c.data = c.data[k:]
	return k, nil
}

// FuzzParseID checks ParseID against the definition: a JSON string, or a
// JSON number without fraction or exponent; the raw text is kept, and
// equal ids have equal keys.
func FuzzParseID(f *testing.F) {
	for _, s := range []string{`1`, `-1`, `0`, `-0`, `01`, `1.0`, `1e3`, `18446744073709551616`, `"a"`, `"\u0061"`, `"\ud800"`,
		`""`, `"`, `null`, `true`, `{}`, `[]`, ` 1`, `1 `, `-`, `"a"x`, "\"\xff\"", `"\/"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		id, err := ParseID(data)
		var s string
		isString := len(data) >= 2 && data[0] == '"' && data[len(data)-1] == '"' && json.Unmarshal(data, &s) == nil
		isInt := isJSONInteger(data) && json.Valid(data)
		if (err == nil) != (isString || isInt) {
			t.Fatalf("ParseID(%q): %v; string %v, integer %v", data, err, isString, isInt)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidID) || !id.IsZero() {
				t.Fatalf("ParseID(%q): %v, %v", data, id, err)
			}
			return
		}
		if string(id.Raw()) != string(data) || id.String() != string(data) || id.IsZero() {
			t.Fatalf("ParseID(%q) keeps %q", data, id.Raw())
		}
		// Byte for byte through an encoder; json.Marshal would escape <>&.
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(id); err != nil || buf.String() != string(data)+"\n" {
			t.Fatalf("MarshalJSON: %q, %v", buf.String(), err)
		}
		var back ID
		if err := json.Unmarshal(data, &back); err != nil || back != id {
			t.Fatalf("UnmarshalJSON: %v, %v", back, err)
		}
		// Equal ids, spelt differently, share a key; ints and strings never do.
		var twin ID
		if isString {
			twin = StringID(s)
			if id.Key() != "s"+s {
				t.Fatalf("key %q for string %q", id.Key(), s)
			}
		} else {
			twin = id
			if n, err := strconv.ParseUint(string(data), 10, 64); err == nil {
				twin = IntID(n)
			}
			if id.Key()[0] != 'n' {
				t.Fatalf("key %q for number %s", id.Key(), data)
			}
		}
		if twin.Key() != id.Key() {
			t.Fatalf("key %q, twin %s key %q", id.Key(), twin.Raw(), twin.Key())
		}
		if again, err := ParseID(twin.Raw()); err != nil || again.Key() != id.Key() {
			t.Fatalf("twin %s does not parse back: %v", twin.Raw(), err)
		}
	})
}
