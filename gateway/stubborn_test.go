package gateway

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/winbridge/winbridge/client"
)

// stubbornConfig configures n servers that only SIGKILL stops.
func stubbornConfig(t *testing.T, n int) *client.Config {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := &client.Config{Servers: map[string]*client.ServerConfig{}}
	for i := range n {
		name := fmt.Sprintf("stub%d", i)
		cfg.Servers[name] = &client.ServerConfig{Name: name, Command: exe, Env: map[string]string{helperEnv: "stubborn"}, Lifecycle: client.KeepAlive}
	}
	return cfg
}

// Each stubborn server takes StopGrace + KillGrace to stop.
const stubbornGrace = time.Second

// stopBound is how long stopping any number of stubborn servers may
// take: one server's grace, with room for a loaded machine, but less
// than stopping four one after another.
const stopBound = 5 * stubbornGrace / 2

// TestCloseStopsUpstreamsAtOnce: upstreams that will not stop each cost
// their grace periods; Close stopped them one after another, so a few
// stubborn servers made it take the sum. They are stopped together.
func TestCloseStopsUpstreamsAtOnce(t *testing.T) {
	f := start(t, &Options{Config: stubbornConfig(t, 4),
		Process: client.ProcessOptions{StopGrace: stubbornGrace / 2, KillGrace: stubbornGrace / 2}}, nil)
	for _, s := range f.g.Status() {
		if s.State != StateReady {
			t.Fatalf("%s: %s", s.Name, s.State)
		}
	}
	begin := time.Now()
	f.g.Close()
	if d := time.Since(begin); d > stopBound {
		t.Errorf("Close took %v; stopping four servers that each take %v should not take their sum", d, stubbornGrace)
	}
}

// TestReloadStopsUpstreamsAtOnce: the same for a Reload that removes
// them.
func TestReloadStopsUpstreamsAtOnce(t *testing.T) {
	f := start(t, &Options{Config: stubbornConfig(t, 4),
		Process: client.ProcessOptions{StopGrace: stubbornGrace / 2, KillGrace: stubbornGrace / 2}}, nil)
	begin := time.Now()
	if err := f.g.Reload(&Options{Config: &client.Config{}}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(begin); d > stopBound {
		t.Errorf("Reload took %v; stopping four servers that each take %v should not take their sum", d, stubbornGrace)
	}
}
