package client

import "time"

// StartPacer paces the starts of a server that keeps failing, by the
// backoff of a RestartPolicy: after each failed start the next waits, the
// wait growing with the failures in a row. A start that succeeded counts
// as failed too when its server then fails for good sooner than the
// policy's StableAfter: a server that exits right after its handshake
// would otherwise be launched again at once, and forever (for an npx
// server, an npm and a node start each time).
//
// The Manager paces each of its servers with one; so does the gateway,
// whose upstreams have a loop of their own. It is not safe for concurrent
// use: its owner holds its own lock around it.
type StartPacer struct {
	policy RestartPolicy
	// failures counts the starts failed in a row; streak the failures
	// before the start that succeeded last, which a short run resumes.
	failures, streak int
	next             time.Time
}

// NewStartPacer returns a pacer with rp's backoff (nil: the default
// RestartPolicy), its zero fields set as a RestartPolicy's are: 200 ms
// doubling up to 30 s, spread by 20%, a run stable after a minute.
func NewStartPacer(rp *RestartPolicy) *StartPacer {
	sp := &StartPacer{}
	if rp != nil {
		sp.policy = *rp
	}
	p := &sp.policy
	setDefault(&p.InitialDelay, 200*time.Millisecond)
	setDefault(&p.MaxDelay, 30*time.Second)
	if p.Multiplier < 1 {
		p.Multiplier = 2
	}
	if p.Jitter == 0 {
		p.Jitter = 0.2
	}
	setDefault(&p.StableAfter, time.Minute)
	return sp
}

// Failed records a start that failed at now, and returns when the next
// may begin.
func (sp *StartPacer) Failed(now time.Time) time.Time {
	sp.failures++
	sp.next = now.Add(backoff(&sp.policy, sp.failures))
	return sp.next
}

// Started records a start that succeeded. The failures before it are
// kept aside: a run that ends too soon (Ended) resumes their count.
func (sp *StartPacer) Started() {
	sp.streak, sp.failures = sp.failures, 0
}

// Ended records that a server that started at start (became ready)
// failed for good at end. A run shorter than StableAfter counts as a
// failed start: Ended then reports true and when the next start may
// begin. A longer one clears the count.
func (sp *StartPacer) Ended(start, end time.Time) (next time.Time, short bool) {
	if end.Sub(start) >= sp.policy.StableAfter {
		sp.streak = 0
		return time.Time{}, false
	}
	sp.failures = sp.streak + 1
	sp.next = end.Add(backoff(&sp.policy, sp.failures))
	return sp.next, true
}

// Failures is how many starts in a row have failed (a short run counting).
func (sp *StartPacer) Failures() int { return sp.failures }

// Next is when the next start may begin, if Failures is not zero.
func (sp *StartPacer) Next() time.Time { return sp.next }
