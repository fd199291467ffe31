package winexec

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// pattern returns byte i of the stream the flood helpers write.
func pattern(i int64) byte { return byte('0' + i%10) }

func TestCaptureKeepsHeadAndTail(t *testing.T) {
	const limit = 1000
	for _, total := range []int{0, 1, 499, 500, 999, 1000, 1001, 5000, 123457} {
		c := newCapture(limit)
		var all []byte
		r := rand.New(rand.NewPCG(1, uint64(total)))
		for len(all) < total {
			n := min(total-len(all), r.IntN(700)+1)
			chunk := make([]byte, n)
			for i := range chunk {
				chunk[i] = pattern(int64(len(all) + i))
			}
			all = append(all, chunk...)
			c.Write(chunk)
		}
		o := c.output()
		if o.Total != int64(total) {
			t.Fatalf("total %d: Total = %d", total, o.Total)
		}
		if total <= limit {
			if o.Truncated() || !bytes.Equal(o.Head, all) || o.Tail != nil {
				t.Fatalf("total %d: not kept whole: head %d tail %d", total, len(o.Head), len(o.Tail))
			}
			continue
		}
		if !o.Truncated() || len(o.Head) != limit/2 || len(o.Tail) != limit/2 {
			t.Fatalf("total %d: head %d tail %d truncated %v", total, len(o.Head), len(o.Tail), o.Truncated())
		}
		if !bytes.Equal(o.Head, all[:limit/2]) || !bytes.Equal(o.Tail, all[total-limit/2:]) {
			t.Fatalf("total %d: head or tail content wrong", total)
		}
		if o.Omitted() != int64(total-limit) {
			t.Fatalf("total %d: Omitted = %d", total, o.Omitted())
		}
		b := o.Bytes()
		mark := TruncationMark(o.Omitted())
		if !bytes.Contains(b, []byte(mark)) || len(b) != limit+len(mark) {
			t.Fatalf("total %d: Bytes lacks the mark or has wrong length %d", total, len(b))
		}
	}
}

func TestOutputTextTruncatedUTF8(t *testing.T) {
	// A truncation that cuts a multi-byte character must not make the
	// stream look like a code page encoding.
	s := strings.Repeat("中", 1000) // 3000 bytes
	c := newCapture(1001)          // head 500 bytes cuts a character
	c.Write([]byte(s))
	o := c.output()
	text := o.Text(936)
	if !strings.HasPrefix(text, strings.Repeat("中", 166)) || !strings.Contains(text, "bytes truncated") || !strings.HasSuffix(text, "中中") {
		t.Fatalf("decoded as something else: %.80q ... %q", text, text[len(text)-20:])
	}
}
