package closinglog_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/winbridge/winbridge/internal/closinglog"
)

// Records reach the wrapped handler until Close, from the handler and
// from those derived from it, and none after.
func TestCloseSilencesDerivedHandlers(t *testing.T) {
	var buf bytes.Buffer
	h := closinglog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	log := slog.New(h)
	derived := log.With("k", "v").WithGroup("g")
	log.Debug("before")
	derived.Info("derived before", "x", 1)
	h.Close()
	h.Close() // twice is harmless
	log.Warn("after")
	derived.Error("derived after")
	out := buf.String()
	if !strings.Contains(out, "msg=before") || !strings.Contains(out, `msg="derived before" k=v g.x=1`) {
		t.Fatalf("records before Close missing:\n%s", out)
	}
	if strings.Contains(out, "after") {
		t.Fatalf("a record after Close was written:\n%s", out)
	}
	if !h.Enabled(context.Background(), slog.LevelDebug) || h.Enabled(context.Background(), slog.LevelDebug-1) {
		t.Fatal("Enabled is not the wrapped handler's")
	}
}

// Goroutines log while Close happens; once Close has returned, the
// buffer behind the handler is read with no record written meanwhile
// (the race detector would see one), and every record is whole.
func TestCloseWaitsForRecordsBeingWritten(t *testing.T) {
	for range 20 {
		var buf bytes.Buffer
		h := closinglog.New(slog.NewTextHandler(&buf, nil))
		log := slog.New(h)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range 8 {
			wg.Go(func() {
				<-start
				for range 200 {
					log.Info("line", "i", i)
				}
			})
		}
		close(start)
		h.Close()
		out := buf.String() // no write may race with this read
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if line != "" && !strings.HasSuffix(line, "msg=line i="+line[len(line)-1:]) {
				t.Fatalf("a torn record: %q", line)
			}
		}
		wg.Wait()
		if buf.String() != out {
			t.Fatal("records were written after Close returned")
		}
	}
}
