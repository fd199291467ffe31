package mcp

import "testing"

// TestCoalescerHold: posts made while held run only on release, the last
// of each key once: a listen's changes wait for its acknowledgement.
func TestCoalescerHold(t *testing.T) {
	var q coalescer
	ran := make(chan string, 4)
	q.hold()
	q.post("k", func() { ran <- "first" })
	q.post("k", func() { ran <- "second" })
	q.post("j", func() { ran <- "j" })
	select {
	case r := <-ran:
		t.Fatalf("%s ran while held", r)
	default:
	}
	q.release()
	got := map[string]bool{<-ran: true, <-ran: true}
	if !got["second"] || !got["j"] {
		t.Fatalf("ran %v, want the last of k and j", got)
	}
	q.post("k", func() { ran <- "after" })
	if r := <-ran; r != "after" {
		t.Fatalf("after release: %s", r)
	}
	select {
	case r := <-ran:
		t.Fatalf("%s ran again", r)
	default:
	}
}
