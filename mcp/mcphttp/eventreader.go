package mcphttp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"time"

	"github.com/winbridge/winbridge/transport"
)

// sseEvent is one event of a text/event-stream.
type sseEvent struct {
	name     string
	data     []byte
	retry    time.Duration
	tooLarge *transport.TooLargeError
}

// eventReader parses text/event-stream (the WHATWG "server-sent events"
// format): fields until a blank line, "data" lines joined by LF.
type eventReader struct {
	br     *bufio.Reader
	max    int
	lastID string
}

func newEventReader(r io.Reader, max int) *eventReader {
	// Small: line() accumulates longer lines itself, and a response that is
	// one short event should not cost a 64 KiB buffer.
	return &eventReader{br: bufio.NewReaderSize(r, 4<<10), max: max}
}

func (r *eventReader) next() (sseEvent, error) {
	var ev sseEvent
	var data bytes.Buffer
	hasData, over := false, int64(0)
	for {
		line, dropped, err := r.line()
		if err != nil {
			return ev, err
		}
		if len(line) == 0 {
			if over > 0 {
				ev.tooLarge = &transport.TooLargeError{Size: int64(data.Len()) + over, Limit: r.max, Head: head(data.Bytes())}
				return ev, nil
			}
			if hasData || ev.retry > 0 {
				ev.data = data.Bytes()
				return ev, nil
			}
			ev = sseEvent{}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "data":
			if hasData {
				// The line feed joining two data lines counts against the
				// limit like the data itself: uncounted, an endless event
				// of empty "data:" lines grew the buffer without bound.
				if data.Len() < r.max {
					data.WriteByte('\n')
				} else {
					over++
				}
			}
			hasData = true
			over += dropped
			if room := r.max - data.Len(); len(value) > room {
				over += int64(len(value) - max(room, 0))
				value = value[:max(room, 0)]
			}
			data.Write(value)
		case "event":
			ev.name = string(value)
		case "id":
			if !bytes.ContainsRune(value, 0) {
				r.lastID = string(value)
			}
		case "retry":
			if n, err := strconv.Atoi(string(value)); err == nil && n >= 0 {
				ev.retry = time.Duration(n) * time.Millisecond
			}
		}
	}
}

// line returns one line without its terminator (LF, CRLF or CR before
// LF), keeping at most max+16 bytes of it: longer data is counted as over
// the limit by next.
func (r *eventReader) line() (line []byte, dropped int64, err error) {
	keep := r.max + 16
	var last byte // the last byte of the chunks before this one
	for {
		chunk, err := r.br.ReadSlice('\n')
		n := min(len(chunk), max(keep-len(line), 0))
		line = append(line, chunk[:n]...)
		dropped += int64(len(chunk) - n)
		switch {
		case err == nil:
			// The terminator, LF or CR LF, is no part of the line,
			// whether it was kept or dropped. (Trimming a CR off what was
			// kept of a cut line took one from the middle of it.)
			end := int64(1)
			if (len(chunk) >= 2 && chunk[len(chunk)-2] == '\r') || (len(chunk) == 1 && last == '\r') {
				end = 2
			}
			size := int64(len(line)) + dropped - end
			if size <= int64(len(line)) {
				return line[:size], 0, nil
			}
			return line, size - int64(len(line)), nil
		case errors.Is(err, bufio.ErrBufferFull):
			last = chunk[len(chunk)-1]
			continue
		case len(line) > 0 && errors.Is(err, io.EOF):
			return bytes.TrimSuffix(line, []byte("\r")), dropped, nil
		default:
			return nil, 0, err
		}
	}
}
