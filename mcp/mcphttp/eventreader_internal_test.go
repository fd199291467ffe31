package mcphttp

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// A server's event of nothing but empty data lines cannot grow the
// client's buffer past the message limit. Each "data:" line adds a line
// feed to the event's data, and the line feeds were not counted against
// the limit: one endless event of "data:\n" (six bytes a line) held a
// sixth of everything the server sent, however much, and came out whole,
// not as too large.
func TestEventReaderBoundsEmptyDataLines(t *testing.T) {
	const limit = 4 << 10
	lines := 1 << 20 // 6 MiB from the server
	src := io.MultiReader(strings.NewReader(strings.Repeat("data:\n", lines)), strings.NewReader("\n"))
	r := newEventReader(src, limit)
	ev, err := r.next()
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.data) > limit || cap(ev.data) > 2*limit+64<<10 {
		t.Errorf("event data of %d bytes (capacity %d) kept under a limit of %d", len(ev.data), cap(ev.data), limit)
	}
	if ev.tooLarge == nil {
		t.Fatalf("an event of %d bytes of data was not reported as too large", lines-1)
	}
	if ev.tooLarge.Size != int64(lines-1) {
		t.Errorf("too large: size %d, want %d", ev.tooLarge.Size, lines-1)
	}
}

// FuzzEventReader: under a limit, the events read are those read without
// one (their names too, where they fit the limit), except that an event whose data exceeds the limit is reported as
// too large, with its true size, and never holds more than the limit.
func FuzzEventReader(f *testing.F) {
	for _, s := range []string{
		"data: {}\n\n",
		"data:\ndata:\ndata:\n\n",
		"event: message\nid: 7\ndata: a\ndata: b\r\n\r\n",
		"retry: 10\n\ndata:" + strings.Repeat("x", 40) + "\n\n",
		": comment\ndata\n\ndata: tail",
		"data: 0123456789\ndata: 0123456789\ndata:\n\n",
	} {
		f.Add([]byte(s), uint8(8))
	}
	f.Fuzz(func(t *testing.T, in []byte, lim uint8) {
		limit := int(lim)%64 + 1
		ref := newEventReader(bytes.NewReader(in), 1<<30)
		got := newEventReader(bytes.NewReader(in), limit)
		for {
			want, werr := ref.next()
			ev, err := got.next()
			if (werr == nil) != (err == nil) {
				t.Fatalf("errors differ: %v, unbounded %v", err, werr)
			}
			if werr != nil {
				if !errors.Is(werr, io.EOF) || !errors.Is(err, io.EOF) {
					t.Fatalf("errors %v, %v", err, werr)
				}
				return
			}
			if len(ev.data) > limit {
				t.Fatalf("%d bytes of data kept under a limit of %d", len(ev.data), limit)
			}
			// A field line is kept up to the limit and a little more: a
			// longer event name (or retry) is cut, harmlessly.
			if len(want.name) <= limit && ev.name != want.name {
				t.Fatalf("event %q, unbounded %q", ev.name, want.name)
			}
			if len(want.data) <= limit {
				if ev.tooLarge != nil || !bytes.Equal(ev.data, want.data) {
					t.Fatalf("data %q (too large: %v), unbounded %q", ev.data, ev.tooLarge, want.data)
				}
				continue
			}
			if ev.tooLarge == nil || ev.tooLarge.Size != int64(len(want.data)) {
				t.Fatalf("%d bytes of data under a limit of %d: too large %v", len(want.data), limit, ev.tooLarge)
			}
		}
	})
}
