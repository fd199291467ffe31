package transport

import (
	"context"
	"log/slog"

	"github.com/winbridge/winbridge/internal/closinglog"
)

// closingLog is a stream's logger, silent once the stream has closed.
// The read loop outlives Close by a moment (it learns of the close on
// its next read), and a line it logged then reached a handler its owner
// had already let go of: a command's buffer read after it returned, a
// log file being closed. Close waits for a line being written, never
// for the read loop.
type closingLog struct {
	h   *closinglog.Handler
	log *slog.Logger
}

func newClosingLog(l *slog.Logger) *closingLog {
	h := closinglog.New(l.Handler())
	return &closingLog{h: h, log: slog.New(h)}
}

func (l *closingLog) Debug(msg string, args ...any) {
	l.log.Log(context.Background(), slog.LevelDebug, msg, args...)
}

func (l *closingLog) Warn(msg string, args ...any) {
	l.log.Log(context.Background(), slog.LevelWarn, msg, args...)
}

// close silences l, after any line being written.
func (l *closingLog) close() { l.h.Close() }
