package transport

import (
	"context"
	"log/slog"
	"sync"
)

// closingLog is a stream's logger, silent once the stream has closed.
// The read loop outlives Close by a moment (it learns of the close on
// its next read), and a line it logged then reached a handler its owner
// had already let go of: a command's buffer read after it returned, a
// log file being closed. Close waits for a line being written, never
// for the read loop.
type closingLog struct {
	mu  sync.RWMutex
	log *slog.Logger // nil once closed
}

func newClosingLog(l *slog.Logger) *closingLog { return &closingLog{log: l} }

func (l *closingLog) Debug(msg string, args ...any) { l.at(slog.LevelDebug, msg, args...) }
func (l *closingLog) Warn(msg string, args ...any)  { l.at(slog.LevelWarn, msg, args...) }

func (l *closingLog) at(level slog.Level, msg string, args ...any) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.log != nil {
		l.log.Log(context.Background(), level, msg, args...)
	}
}

// close silences l, after any line being written.
func (l *closingLog) close() {
	l.mu.Lock()
	l.log = nil
	l.mu.Unlock()
}
