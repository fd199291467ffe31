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

// redact returns err with u's secrets removed from its message, and what
// the server wrote itself quoted (quoteServerWords); err itself when
// nothing changed.
func (u *upstream) redact(err error) error {
	if err == nil {
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
	out = quoteServerWords(out)
	if out == msg {
		return err
	}
	return &redactedError{msg: out, err: err}
}

// serverWordsLabel ends the first line of an error that quotes what the
// server wrote.
const serverWordsLabel = " (what the server wrote follows, each line marked |)"

// quoteServerWords marks, in an error's message, the lines the server
// wrote itself. The client puts a child's last stderr lines after the
// message's first line ("...; stderr ends:\n<lines>"), and the message
// reaches the model in refusals: as they were, a server's last words read
// as the facade's own, and a hostile server writes "gateway: tool
// refused ..." before it exits. Quoted, each is marked as the server's.
// Lines already marked stay as they are, so quoting twice changes
// nothing.
func quoteServerWords(msg string) string {
	head, tail, ok := strings.Cut(msg, "\n")
	if !ok {
		return msg
	}
	var b strings.Builder
	b.WriteString(head)
	if !strings.HasSuffix(head, serverWordsLabel) {
		b.WriteString(serverWordsLabel)
	}
	for line := range strings.SplitSeq(tail, "\n") {
		b.WriteString("\n")
		if !strings.HasPrefix(line, "| ") {
			b.WriteString("| ")
		}
		b.WriteString(line)
	}
	return b.String()
}
