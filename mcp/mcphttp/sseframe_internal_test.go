package mcphttp

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// sseFields splits an SSE body into its events as the WHATWG parser does:
// lines end at CR LF, LF or a lone CR, and an empty line ends an event.
// Each event is its field lines.
func sseFields(body string) [][]string {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	body = strings.ReplaceAll(body, "\r", "\n")
	var evs [][]string
	var cur []string
	for line := range strings.SplitSeq(body, "\n") {
		if line == "" {
			if cur != nil {
				evs = append(evs, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, line)
	}
	return evs
}

// The data of an event cannot end it or add fields to it, whatever line
// breaks it holds: a lone CR in a message (one read back from a shared
// EventStore) was written as it was, and a client, which ends a line at
// CR, read what followed it as fields: here a second event and a forged
// id.
func TestSSEEventDataCannotForgeFields(t *testing.T) {
	data := []byte("{\"a\":1,\r\rid: forged_9\revent: message\rdata: {}\r\n\n\r\"b\":2}")
	rec := httptest.NewRecorder()
	sw := &sseWriter{w: rec, rc: http.NewResponseController(rec)}
	if err := sw.event("s_1", data); err != nil {
		t.Fatal(err)
	}
	evs := sseFields(rec.Body.String())
	if len(evs) != 1 {
		t.Fatalf("one event written, %d read: %q", len(evs), rec.Body.String())
	}
	var got []string
	for _, f := range evs[0] {
		switch {
		case strings.HasPrefix(f, "data: "):
			got = append(got, strings.TrimPrefix(f, "data: "))
		case f == "id: s_1", f == "event: message":
		default:
			t.Errorf("field %q in the event", f)
		}
	}
	want := strings.FieldsFunc(string(data), func(r rune) bool { return r == '\r' || r == '\n' })
	if g, w := strings.Join(got, ""), strings.Join(want, ""); g != w {
		t.Errorf("data %q, want %q", g, w)
	}
}

// FuzzSSEEventFraming: whatever the data, what event writes reads back as
// one event with its id, and data lines that rejoin to the data with its
// line breaks made LF.
func FuzzSSEEventFraming(f *testing.F) {
	for _, s := range []string{"{}", "a\rb", "a\r\nb", "a\n\nb", "\r", "\n", "\r\n", "", "\r\rid: x\r", "a\n\r"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rec := httptest.NewRecorder()
		if err := (&sseWriter{w: rec, rc: http.NewResponseController(rec)}).event("s_1", data); err != nil {
			t.Fatal(err)
		}
		body := rec.Body.String()
		body = strings.ReplaceAll(body, "\r\n", "\n")
		body = strings.ReplaceAll(body, "\r", "\n")
		if !strings.HasSuffix(body, "\n\n") || strings.Contains(strings.TrimSuffix(body, "\n\n"), "\n\n") {
			t.Fatalf("not one event: %q", rec.Body.String())
		}
		var lines []string
		for i, line := range strings.Split(strings.TrimSuffix(body, "\n\n"), "\n") {
			switch {
			case i == 0 && line == "id: s_1", i == 1 && line == "event: message":
			case i > 1 && strings.HasPrefix(line, "data: "):
				lines = append(lines, strings.TrimPrefix(line, "data: "))
			default:
				t.Fatalf("line %d %q in %q", i, line, rec.Body.String())
			}
		}
		norm := strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r", "\n")
		if got := strings.Join(lines, "\n"); got != norm {
			t.Fatalf("data %q, want %q", got, norm)
		}
	})
}
