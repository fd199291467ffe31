package transport

import (
	"bytes"
	"errors"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll reads frames until EOF, writing each TooLargeError as "!TL<size>".
func readAll(t *testing.T, f *LineFramer) []string {
	t.Helper()
	var out []string
	for {
		b, err := f.ReadFrame()
		var tl *TooLargeError
		switch {
		case err == nil:
			out = append(out, string(b))
		case errors.As(err, &tl):
			out = append(out, "!TL"+itoa(tl.Size))
		case err == io.EOF:
			return out
		default:
			t.Fatalf("ReadFrame: %v", err)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestLineFramerRead(t *testing.T) {
	cases := []struct {
		name string
		in   string
		max  int
		want []string
	}{
		{"empty input", "", 10, nil},
		{"LF", "a\nb\n", 10, []string{"a", "b"}},
		{"CRLF", "a\r\nb\r\n", 10, []string{"a", "b"}},
		{"no final newline", "a\nb", 10, []string{"a", "b"}},
		{"blank lines", "\n\n\r\n \t \na\n\n", 10, []string{"a"}},
		{"surrounding white space", " \t a b \t\r\n", 10, []string{"a b"}},
		{"other white space is kept", "\va\f\n\u00a0b\u00a0\n", 10, []string{"\va\f", "\u00a0b\u00a0"}},
		{"lone CR is not a line end", "a\rb\n", 10, []string{"a\rb"}},
		{"at the limit", "0123456789\n", 10, []string{"0123456789"}},
		{"at the limit, CRLF", "0123456789\r\n", 10, []string{"0123456789"}},
		{"at the limit, final CR", "0123456789\r", 10, []string{"0123456789"}},
		{"over the limit", "0123456789a\nok\n", 10, []string{"!TL11", "ok"}},
		{"over the limit by white space", "0123456789 \nok\n", 10, []string{"!TL11", "ok"}},
		{"over the limit, CRLF", "0123456789a\r\nok\n", 10, []string{"!TL12", "ok"}},
		{"over the limit, two CRs", "0123456789\r\r\nok\n", 10, []string{"!TL12", "ok"}},
		{"over the limit at EOF", "0123456789a", 10, []string{"!TL11"}},
		{"far over the limit", strings.Repeat("x", 1000) + "\nok", 10, []string{"!TL1000", "ok"}},
	}
	readers := map[string]func(io.Reader) io.Reader{
		"whole":    func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader,
		"half":     iotest.HalfReader,
	}
	for _, tc := range cases {
		for rname, wrap := range readers {
			for _, bufSize := range []int{16, 64 << 10} {
				t.Run(tc.name+"/"+rname+"/"+itoa(int64(bufSize)), func(t *testing.T) {
					f := newLineFramerSize(readOnly{wrap(strings.NewReader(tc.in))}, tc.max, bufSize)
					got := readAll(t, f)
					if strings.Join(got, "|") != strings.Join(tc.want, "|") {
						t.Errorf("frames %q, want %q", got, tc.want)
					}
				})
			}
		}
	}
}

// The head of an oversized line is its first 4 KiB, whatever the limit.
func TestLineFramerHead(t *testing.T) {
	line := `{"id":"h",` + strings.Repeat(`"k":1,`, 2000) + `"z":0}`
	for _, limit := range []int{16, 100, 5000} {
		for _, bufSize := range []int{16, 1000, 64 << 10} {
			f := newLineFramerSize(readOnly{strings.NewReader(line + "\n")}, limit, bufSize)
			_, err := f.ReadFrame()
			var tl *TooLargeError
			if !errors.As(err, &tl) {
				t.Fatalf("limit %d: %v, want a TooLargeError", limit, err)
			}
			if tl.Size != int64(len(line)) || tl.Limit != limit || string(tl.Head) != line[:headSize] {
				t.Errorf("limit %d, buffer %d: size %d limit %d head %d bytes", limit, bufSize, tl.Size, tl.Limit, len(tl.Head))
			}
			if h := recoverID(tl.Head); h.id.String() != `"h"` {
				t.Errorf("recovered id %s", h.id)
			}
		}
	}
}

// A 50 MiB line is skipped without being held: what the framer allocates
// stays far below the line's size, and the next line is read normally.
func TestLineFramerHugeLineBoundedMemory(t *testing.T) {
	const size = 50 << 20
	for _, limit := range []int{1 << 10, 1 << 20} {
		src := &genReader{n: size, fill: 'x', tail: bytes.NewReader([]byte("\n{\"next\":1}\n"))}
		f := NewLineFramer(readOnly{src}, limit)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := f.ReadFrame()
		runtime.ReadMemStats(&after)
		var tl *TooLargeError
		if !errors.As(err, &tl) || tl.Size != size || tl.Limit != limit || len(tl.Head) != headSize {
			t.Fatalf("limit %d: %v, want a TooLargeError for %d bytes with a %d-byte head", limit, err, size, headSize)
		}
		// Growing the line buffer to the limit leaves garbage behind: a few
		// times the limit, never the line.
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 5*uint64(limit)+(1<<20) {
			t.Errorf("limit %d: reading a %d-byte line allocated %d bytes", limit, size, alloc)
		}
		if cap(f.line) > limit+(64<<10) {
			t.Errorf("limit %d: line buffer grew to %d bytes", limit, cap(f.line))
		}
		b, err := f.ReadFrame()
		if err != nil || string(b) != `{"next":1}` {
			t.Fatalf("next frame %q, %v", b, err)
		}
	}
}

// The default limit takes an 8 MiB message, and a huge line buffer is not
// kept once small messages follow.
func TestLineFramerDefaultLimit(t *testing.T) {
	const size = 8 << 20
	src := &genReader{n: size, fill: 'y', tail: bytes.NewReader([]byte("\nsmall\n"))}
	f := NewLineFramer(readOnly{src}, 0)
	if f.max != DefaultMaxMessageSize {
		t.Fatalf("default limit %d", f.max)
	}
	b, err := f.ReadFrame()
	if err != nil || len(b) != size || bytes.Count(b, []byte("y")) != size {
		t.Fatalf("8 MiB frame: %d bytes, %v", len(b), err)
	}
	if b, err := f.ReadFrame(); err != nil || string(b) != "small" {
		t.Fatalf("next frame %q, %v", b, err)
	}
	if f.line != nil {
		t.Errorf("the framer keeps a %d-byte line buffer", cap(f.line))
	}
}

// WriteFrame issues one Write per message, with a single LF.
func TestLineFramerWrite(t *testing.T) {
	var w writeLog
	f := NewLineFramer(&w, 0)
	for _, m := range []string{`{"a":1}`, strings.Repeat("z", 2<<20), `{}`} {
		if err := f.WriteFrame([]byte(m)); err != nil {
			t.Fatal(err)
		}
		if last := w.writes[len(w.writes)-1]; last != m+"\n" {
			t.Fatalf("write %.40q, want the message and one LF", last)
		}
	}
	if len(w.writes) != 3 {
		t.Errorf("%d writes for 3 messages", len(w.writes))
	}
	if cap(f.wbuf) > keepLineBuf {
		t.Errorf("the framer keeps a %d-byte write buffer", cap(f.wbuf))
	}
}

type writeLog struct {
	readOnly
	writes []string
}

func (w *writeLog) Write(p []byte) (int, error) {
	w.writes = append(w.writes, string(p))
	return len(p), nil
}

// Close unblocks a pending read, which reports io.EOF; Close is idempotent.
func TestLineFramerClose(t *testing.T) {
	checkLeaks(t)
	c1, c2 := net.Pipe()
	defer c2.Close()
	f := NewLineFramer(c1, 0)
	errc := make(chan error, 1)
	go func() { _, err := f.ReadFrame(); errc <- err }()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	within(t, "ReadFrame after Close", func() {
		if err := <-errc; err != io.EOF {
			t.Errorf("ReadFrame after Close: %v, want io.EOF", err)
		}
	})
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := f.WriteFrame([]byte("x")); err == nil {
		t.Error("WriteFrame after Close succeeded")
	}
}

// A read error that is not the end of input is reported as it is.
func TestLineFramerReadError(t *testing.T) {
	boom := errors.New("boom")
	f := NewLineFramer(readOnly{io.MultiReader(strings.NewReader("a\npartial"), iotest.ErrReader(boom))}, 0)
	if b, err := f.ReadFrame(); err != nil || string(b) != "a" {
		t.Fatalf("first frame %q, %v", b, err)
	}
	if _, err := f.ReadFrame(); !errors.Is(err, boom) {
		t.Fatalf("got %v, want boom", err)
	}
}
