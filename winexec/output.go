package winexec

import (
	"fmt"
)

// Output is one captured stream. When the stream was longer than its cap,
// Head holds its first bytes and Tail its last; otherwise Head holds it all
// and Tail is empty.
type Output struct {
	Head []byte
	Tail []byte
	// Total is the number of bytes the program wrote to the stream.
	Total int64
}

// Truncated reports whether bytes between Head and Tail were dropped.
func (o Output) Truncated() bool { return o.Total > int64(len(o.Head)+len(o.Tail)) }

// Omitted is the number of bytes dropped between Head and Tail.
func (o Output) Omitted() int64 { return o.Total - int64(len(o.Head)+len(o.Tail)) }

// TruncationMark is the text placed between head and tail by Bytes and Text.
// It is ASCII so that it survives any decoding.
func TruncationMark(omitted int64) string {
	return fmt.Sprintf("\n[winexec: %d bytes truncated]\n", omitted)
}

// Bytes returns the raw stream, with TruncationMark between head and tail
// when it was truncated.
func (o Output) Bytes() []byte {
	if !o.Truncated() {
		return append([]byte(nil), o.Head...)
	}
	mark := TruncationMark(o.Omitted())
	b := make([]byte, 0, len(o.Head)+len(mark)+len(o.Tail))
	b = append(b, o.Head...)
	b = append(b, mark...)
	return append(b, o.Tail...)
}

// Text decodes the stream with Decode, head and tail separately so that a
// character cut by truncation does not make the whole stream look like
// non-UTF-8.
func (o Output) Text(codePage int) string {
	if !o.Truncated() {
		return Decode(o.Head, codePage)
	}
	head, tail := o.Head, o.Tail
	// Decide the encoding on the whole once, ignoring the cut characters,
	// so head and tail never decode differently.
	cp := codePage
	if isUTF8(trimCutUTF8(head, tail)) {
		cp = 65001
	}
	return Decode(head, cp) + TruncationMark(o.Omitted()) + Decode(tail, cp)
}

// capture keeps the first and last bytes of a stream within a fixed budget,
// so memory stays bounded whatever the program writes.
type capture struct {
	headMax int
	head    []byte
	tail    []byte // ring buffer of tailMax bytes once full
	tailMax int
	tailPos int // next write position in tail when full
	full    bool
	total   int64
}

func newCapture(limit int) *capture {
	if limit <= 0 {
		limit = DefaultMaxOutput
	}
	h := limit / 2
	return &capture{headMax: h, tailMax: limit - h}
}

// Write never fails: dropping bytes is the point.
func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	c.total += int64(n)
	if room := c.headMax - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 || c.tailMax == 0 {
		return n, nil
	}
	if len(p) >= c.tailMax {
		if c.tail == nil {
			c.tail = make([]byte, c.tailMax)
		}
		copy(c.tail, p[len(p)-c.tailMax:])
		c.tailPos, c.full = 0, true
		return n, nil
	}
	if !c.full {
		if len(c.tail)+len(p) <= c.tailMax {
			c.tail = append(c.tail, p...)
			if len(c.tail) == c.tailMax {
				c.full, c.tailPos = true, 0
			}
			return n, nil
		}
		// Grow to the full ring, then fall through to ring writes.
		old := c.tail
		c.tail = make([]byte, c.tailMax)
		copy(c.tail, old)
		c.tailPos, c.full = len(old), true
	}
	for len(p) > 0 {
		k := copy(c.tail[c.tailPos:], p)
		p = p[k:]
		c.tailPos = (c.tailPos + k) % c.tailMax
	}
	return n, nil
}

// output returns the captured stream; when nothing was dropped, the tail
// bytes join the head.
func (c *capture) output() Output {
	var tail []byte
	if c.full {
		tail = make([]byte, 0, c.tailMax)
		tail = append(tail, c.tail[c.tailPos:]...)
		tail = append(tail, c.tail[:c.tailPos]...)
	} else {
		tail = append([]byte(nil), c.tail...)
	}
	o := Output{Head: append([]byte(nil), c.head...), Tail: tail, Total: c.total}
	if !o.Truncated() && len(tail) > 0 {
		o.Head = append(o.Head, tail...)
		o.Tail = nil
	}
	if len(o.Tail) == 0 {
		o.Tail = nil
	}
	return o
}
