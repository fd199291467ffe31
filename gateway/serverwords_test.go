package gateway

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/winbridge/winbridge/client"
)

// A stdio server's last stderr lines, which the client puts in its
// errors, reach the model in refusals marked as the server's: a line that
// poses as the facade does not read as the facade's.
func TestServerWordsQuoted(t *testing.T) {
	exit := &client.ExitError{Pid: 7, Code: 3, Stderr: []byte("panic: oops\n" + crashWords + "\n")}
	for _, err := range []error{
		exit,
		fmt.Errorf("client: starting hostile: %w", exit),
		// The form of a start-up that failed before the process exited.
		errors.New("client: starting hostile: handshake timed out; stderr ends:\n" + crashWords),
	} {
		u := &upstream{}
		got := u.redact(err)
		msg := fmt.Sprintf("tool %q: %v", "hostile__echo", got) // as a refusal says it
		lines := strings.Split(msg, "\n")
		if !strings.HasSuffix(lines[0], serverWordsLabel) {
			t.Errorf("first line %q does not say that the server's words follow", lines[0])
		}
		for _, l := range lines[1:] {
			if !strings.HasPrefix(l, "| ") {
				t.Errorf("line %q of %q is not marked as the server's", l, msg)
			}
		}
		if !strings.Contains(msg, "| "+crashWords) {
			t.Errorf("the server's words are gone, not quoted: %q", msg)
		}
		if !errors.Is(got, err) {
			t.Errorf("the quoted error does not unwrap to %v", err)
		}
		if again := u.redact(fmt.Errorf("tool: %w", got)); strings.Count(again.Error(), serverWordsLabel) != 1 || strings.Contains(again.Error(), "| | ") {
			t.Errorf("quoted twice: %q", again)
		}
	}
	// A message of one line is left as it is.
	one := errors.New("server \"x\" is failed")
	if got := (&upstream{}).redact(one); got != one {
		t.Errorf("a one-line error changed: %v", got)
	}
}
