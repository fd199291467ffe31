package winexec

import (
	"bufio"
	"context"
	"os"
	"testing"
	"time"
)

// TestPSSessionLateCancelDiscardsHost: a call whose context is cancelled
// sends "cancel" to its PowerShell host from a goroutine. When the
// program ended by itself at the same moment, the bootstrap answers
// cancelled:false and the host looked reusable; but the cancel line could
// still reach it after the next call's request, and the bootstrap takes
// any line during a request as that request's cancel, so another call's
// program was killed. A session that was sent a cancel must not be
// reused: do reports the cancellation, and the caller kills it.
func TestPSSessionLateCancelDiscardsHost(t *testing.T) {
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	defer inW.Close()
	s := &psSession{stdin: inW, frames: make(chan frame)}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	type result struct {
		res *Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := s.do(ctx, &wireRequest{ID: 1}, 1024, time.Minute)
		done <- result{res, err}
	}()
	// Wait until the cancel line is on the pipe, then let the program's
	// end arrive: the bootstrap had finished before reading it.
	sc := bufio.NewScanner(inR)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() && sc.Text() != "cancel" {
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	s.frames <- frame{T: "x", ID: 1}
	r := <-done
	if r.err == nil {
		t.Fatalf("do returned %+v with no error after sending cancel: the host would be reused with a cancel line in flight", r.res)
	}
	if r.res == nil {
		t.Errorf("do returned no result with %v; the program ran", r.err)
	}
}
