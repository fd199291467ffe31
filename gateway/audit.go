package gateway

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Record is one audit line: what was called, by whom, and what became of
// it. It never holds argument or result content, only sizes.
type Record struct {
	Time          time.Time
	Session       string // the downstream session's id within this process
	Client        string // the client's name from initialize or _meta
	Profile       string
	Server        string // the upstream server; empty for an unknown name
	Tool          string // the upstream tool's own name
	Exposed       string // the name the model called
	ArgumentBytes int
	ResultBytes   int // the bytes of content the model received
	Cut           bool
	Duration      time.Duration
	Outcome       string // "ok", "tool_error" (the upstream's isError), "refused", "failed"
	Code          Code
	Approval      string // "", "not_required", "accepted", "declined", "cancelled", "unavailable", "not_asked", "allowed_without_elicitation"
}

// addTo renders r into a slog record: one flat JSON object per line with
// a JSON handler. The attributes go in one AddAttrs call, with no slice of
// their own on the heap: it runs on every call.
func (r *Record) addTo(rec *slog.Record) {
	rec.AddAttrs(
		slog.String("session", r.Session),
		slog.String("client", r.Client),
		slog.String("profile", r.Profile),
		slog.String("server", r.Server),
		slog.String("tool", r.Tool),
		slog.String("exposed", r.Exposed),
		slog.Int("argBytes", r.ArgumentBytes),
		slog.Int("resultBytes", r.ResultBytes),
		slog.Bool("cut", r.Cut),
		slog.Int64("durationUs", r.Duration.Microseconds()),
		slog.String("outcome", r.Outcome),
		slog.String("code", string(r.Code)),
		slog.String("approval", r.Approval),
	)
}

// auditor writes records to a handler.
type auditor struct{ h slog.Handler }

func (a *auditor) write(r *Record) {
	if a == nil || a.h == nil {
		return
	}
	rec := slog.NewRecord(r.Time, slog.LevelInfo, "tools/call", 0)
	r.addTo(&rec)
	_ = a.h.Handle(context.Background(), rec)
}

// RotatingFile is an io.Writer for audit lines that starts a new file
// when the current one would pass MaxBytes: FILE is renamed FILE.1 (FILE.1
// to FILE.2, ...), keeping Keep old files. Each Write is one line and is
// never split across files. Use it under slog.NewJSONHandler.
type RotatingFile struct {
	path     string
	maxBytes int64
	keep     int

	mu   sync.Mutex
	f    *os.File
	size int64
}

// Defaults of OpenRotatingFile.
const (
	DefaultAuditMaxBytes = 16 << 20
	DefaultAuditKeep     = 5
)

// OpenRotatingFile opens (appending) or creates path with mode 0600;
// maxBytes <= 0 means DefaultAuditMaxBytes, keep <= 0 DefaultAuditKeep.
func OpenRotatingFile(path string, maxBytes int64, keep int) (*RotatingFile, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultAuditMaxBytes
	}
	if keep <= 0 {
		keep = DefaultAuditKeep
	}
	rf := &RotatingFile{path: path, maxBytes: maxBytes, keep: keep}
	if err := rf.open(); err != nil {
		return nil, err
	}
	return rf, nil
}

func (rf *RotatingFile) open() error {
	f, err := os.OpenFile(rf.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("audit: %w", err)
	}
	rf.f, rf.size = f, fi.Size()
	return nil
}

// Write appends p, rotating first if it would pass the size.
func (rf *RotatingFile) Write(p []byte) (int, error) {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if rf.f == nil {
		return 0, os.ErrClosed
	}
	if rf.size > 0 && rf.size+int64(len(p)) > rf.maxBytes {
		if err := rf.rotate(); err != nil {
			return 0, err
		}
	}
	n, err := rf.f.Write(p)
	rf.size += int64(n)
	return n, err
}

func (rf *RotatingFile) rotate() error {
	rf.f.Close()
	rf.f = nil
	_ = os.Remove(rf.name(rf.keep))
	for i := rf.keep - 1; i >= 1; i-- {
		_ = os.Rename(rf.name(i), rf.name(i+1))
	}
	if err := os.Rename(rf.path, rf.name(1)); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("audit: rotating %s: %w", filepath.Base(rf.path), err)
	}
	return rf.open()
}

func (rf *RotatingFile) name(i int) string { return rf.path + "." + strconv.Itoa(i) }

// Close closes the current file.
func (rf *RotatingFile) Close() error {
	rf.mu.Lock()
	defer rf.mu.Unlock()
	if rf.f == nil {
		return nil
	}
	err := rf.f.Close()
	rf.f = nil
	return err
}
