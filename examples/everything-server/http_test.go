package main

import (
	"context"
	"errors"
	"testing"

	"github.com/winbridge/winbridge/internal/httpserve"
)

// -http on an address other hosts can reach is refused unless
// -http-allow-remote is given, and then only with a token.
func TestHTTPRefusesRemoteAddress(t *testing.T) {
	for _, hc := range []httpserve.Config{
		{Addr: ":0"},
		{Addr: "0.0.0.0:0"},
		{Addr: "0.0.0.0:0", AllowRemote: true},
	} {
		err := serveHTTP(context.Background(), newServer(), &hc)
		if !errors.Is(err, httpserve.ErrRemote) {
			t.Errorf("%+v: %v, want ErrRemote", hc, err)
		}
	}
}
