package oauth

import (
	"testing"
	"time"
)

// SetLoopbackLimits sets the redirect listener's bounds for one test
// (listeners made after it): short timeouts make a slow client's fate
// visible at test speed.
func SetLoopbackLimits(t testing.TB, conns int, header, read time.Duration) {
	old := loopbackLimits
	loopbackLimits.conns, loopbackLimits.header, loopbackLimits.read = conns, header, read
	t.Cleanup(func() { loopbackLimits = old })
}

// SetEndpointTimeout sets the bound of one request to an endpoint, for one
// test.
func SetEndpointTimeout(t testing.TB, d time.Duration) {
	old := endpointTimeout
	endpointTimeout = d
	t.Cleanup(func() { endpointTimeout = old })
}
