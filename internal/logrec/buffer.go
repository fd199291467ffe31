package logrec

import (
	"bytes"
	"sync"
)

// Buffer is a bytes.Buffer that several goroutines may write at once: the
// io.Writer of a text or JSON slog handler whose whole output a test
// reads back. Its zero value is ready to use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
