package winexec

import (
	"context"
	"testing"
	"time"
)

// TestExecutorCapsTimeout: a caller cannot ask for a run longer than the
// server's maximum; the default obeys it too.
func TestExecutorCapsTimeout(t *testing.T) {
	tests := []struct {
		cfg  Config
		req  time.Duration
		want time.Duration
	}{
		{Config{}, 100 * time.Hour, DefaultMaxTimeout},
		{Config{}, 0, DefaultTimeout},
		{Config{}, -time.Second, DefaultTimeout},
		{Config{}, time.Second, time.Second},
		{Config{MaxTimeout: 5 * time.Second}, time.Minute, 5 * time.Second},
		{Config{MaxTimeout: 5 * time.Second}, 0, 5 * time.Second},
		{Config{MaxTimeout: 5 * time.Second, DefaultTimeout: 2 * time.Second}, 0, 2 * time.Second},
	}
	for _, tt := range tests {
		b := &recordingBackend{}
		cfg := tt.cfg
		cfg.Runner = b
		e := mustNew(t, cfg)
		if _, err := e.Run(context.Background(), Request{Exe: "hdc", Timeout: tt.req}); err != nil {
			t.Fatal(err)
		}
		if got := b.reqs[0].Timeout; got != tt.want {
			t.Errorf("max %v default %v, request %v: ran with %v, want %v", tt.cfg.MaxTimeout, tt.cfg.DefaultTimeout, tt.req, got, tt.want)
		}
	}
}
