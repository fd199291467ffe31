package mcp

import (
	"testing"

	"github.com/winbridge/winbridge/internal/wirenames"
)

// The strings every call repeats are in wirenames' table, so that reading
// them out of a message allocates nothing: the methods the server answers,
// the revisions it speaks, the log levels and the result types. A method
// added without its name there costs an allocation per call, silently.
func TestWireNamesCoverTheProtocol(t *testing.T) {
	var names []string
	for m := range serverMethods {
		names = append(names, m)
	}
	names = append(names, SupportedVersions...)
	for _, l := range []LoggingLevel{LevelDebug, LevelInfo, LevelNotice, LevelWarning, LevelError, LevelCritical, LevelAlert, LevelEmergency} {
		names = append(names, string(l))
	}
	names = append(names, ResultComplete, ResultInputRequired, ResultTask)
	for _, name := range names {
		tok := []byte(`"` + name + `"`)
		if s, ok := wirenames.Unquote(tok); !ok || s != name {
			t.Fatalf("%s: %q %v", tok, s, ok)
		}
		if n := testing.AllocsPerRun(10, func() { _, _ = wirenames.Unquote(tok) }); n != 0 {
			t.Errorf("%q is not in internal/wirenames' table (%v allocations to read it)", name, n)
		}
	}
}
