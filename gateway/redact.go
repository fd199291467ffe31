package gateway

import (
	"net/url"
	"slices"
	"strings"
)

// An HTTP upstream's URL often carries its credential (?api_key=…, or
// user:password@), and the errors of its requests name the URL. Those
// errors reach the model in refusals (upstream_error,
// upstream_unavailable) and resource or prompt errors, and from the
// model's context any upstream it talks to can ask for them; they reach
// Status, Plan and the log too. So the facade removes, from every error of
// an HTTP upstream it passes on or records, the URL's query and fragment,
// its password, and the values of its query and of its configured
// headers, as header values are never logged.

// minSecretLen is the shortest value removed on its own: shorter ones (a
// "1" in ?v=1) are no credential, and removing them would garble the
// message. The whole query is removed whatever its length.
const minSecretLen = 4

// secrets returns what must not appear in u's errors, longest first (so
// that a value containing another is removed whole).
func (h *HTTPServer) secrets() []string {
	var out []string
	add := func(s string) {
		if len(s) >= minSecretLen && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if p, err := url.Parse(h.URL); err == nil {
		if p.RawQuery != "" {
			out = append(out, p.RawQuery) // whatever its length
		}
		add(p.Fragment)
		add(p.RawFragment)
		if pw, ok := p.User.Password(); ok {
			add(pw)
			add(url.QueryEscape(pw))
		}
		for _, vs := range p.Query() {
			for _, v := range vs {
				add(v)
				add(url.QueryEscape(v))
			}
		}
	}
	for _, vs := range h.Header {
		for _, v := range vs {
			add(v)
			if _, tok, ok := strings.Cut(v, " "); ok { // "Bearer <token>"
				add(tok)
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// redactedError is an error whose message had secrets removed; it still
// unwraps to the original, for errors.Is.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redact returns err with u's secrets removed from its message; err
// itself when u is not an HTTP upstream or nothing was removed.
func (u *upstream) redact(err error) error {
	if err == nil || u.http == nil {
		return err
	}
	if _, done := err.(*redactedError); done {
		return err
	}
	msg := err.Error()
	out := msg
	for _, s := range u.secrets {
		out = strings.ReplaceAll(out, s, "***")
	}
	if out == msg {
		return err
	}
	return &redactedError{msg: out, err: err}
}
