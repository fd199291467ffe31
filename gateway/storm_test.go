package gateway

import (
	"os"
	"strconv"
	"testing"

	"github.com/winbridge/winbridge/client"
)

// TestListChangedStormIsPaced: an upstream that floods
// notifications/tools/list_changed had the facade relist it back to back,
// each round a tools/list and a rebuild of every profile's surface over
// every upstream: one bad server kept a core busy for all. Relists of one
// upstream are paced to one per relistInterval; a change is still seen
// within one.
func TestListChangedStormIsPaced(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := &client.Config{Servers: map[string]*client.ServerConfig{
		"storm": {Name: "storm", Command: exe, Env: map[string]string{helperEnv: "storm"}, Lifecycle: client.KeepAlive},
	}}
	f := start(t, &Options{Config: cfg, Servers: inproc()}, nil)
	res, code := f.call(t, "storm__lists", nil) // answered when the storm is over
	if code != CodeOK {
		t.Fatalf("%s %q", code, res.TextOf())
	}
	n, err := strconv.Atoi(res.TextOf())
	if err != nil {
		t.Fatal(err)
	}
	// The first list, one per interval of the storm, and one that was
	// pending when it ended.
	if limit := 2 + int(stormFor/relistInterval) + 1; n > limit {
		t.Errorf("the facade listed the storming server %d times in %v; want at most %d", n, stormFor, limit)
	}
	if _, code := f.call(t, "up__echo", map[string]any{"text": "x"}); code != CodeOK {
		t.Errorf("another server's tool: %s", code)
	}
}
