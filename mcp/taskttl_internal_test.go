package mcp

import (
	"math"
	"testing"
	"time"
)

// TestShorterTTL: a client may ask for a shorter TTL than the server's,
// never a longer one, and no number it sends wraps into a negative TTL
// that would end its task at once.
func TestShorterTTL(t *testing.T) {
	for _, tt := range []struct {
		ms   int64
		want time.Duration
	}{
		{1000, time.Second},
		{0, time.Hour},
		{-5, time.Hour},
		{2 * 3600 * 1000, time.Hour},
		{math.MaxInt64, time.Hour},
		{math.MaxInt64/int64(time.Millisecond) + 1, time.Hour},
		{9_300_000_000_000, time.Hour},
	} {
		if got := shorterTTL(time.Hour, tt.ms); got != tt.want {
			t.Errorf("shorterTTL(1h, %d) = %v, want %v", tt.ms, got, tt.want)
		}
	}
}
