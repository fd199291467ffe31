package oauth

import (
	"context"
	"net/url"
)

// UserAgent is the step of the authorization code grant that only the
// embedding application can do: send the user to authURL (a browser, a
// printed link) and return the query of the redirect back to the
// Config's RedirectURL (code, state, iss, or error). mcpc's login is one;
// LoopbackUserAgent in this package serves the redirect on 127.0.0.1.
type UserAgent interface {
	Authorize(ctx context.Context, authURL string) (url.Values, error)
}

// UserAgentFunc adapts a function to UserAgent.
type UserAgentFunc func(ctx context.Context, authURL string) (url.Values, error)

// Authorize implements UserAgent.
func (f UserAgentFunc) Authorize(ctx context.Context, authURL string) (url.Values, error) {
	return f(ctx, authURL)
}
