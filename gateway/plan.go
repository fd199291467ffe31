package gateway

import (
	"fmt"
	"strings"
	"time"
)

// PlanEntry is one upstream tool as the model will see it, or why it
// will not.
type PlanEntry struct {
	Exposed  string // the listed name
	Server   string
	Tool     string // the upstream's name
	Risk     string // "destructive", "writes" or "read-only", with "+open-world"
	Approval bool   // calls ask the user first
	Budgets  Budgets
	// Status is "listed", "denied: ..." (the policy) or "withheld: ..."
	// (a schema the facade cannot check or the target cannot take).
	Status string
}

// Plan returns the current surface, every upstream tool in server and tool
// order. Upstreams that are not ready contribute nothing; Start first.
func (g *Gateway) Plan() []PlanEntry {
	s := g.main.surf.Load()
	out := make([]PlanEntry, 0, len(s.all))
	for _, e := range s.all {
		pe := PlanEntry{Exposed: e.Name, Server: e.Server, Tool: e.Tool, Risk: e.Risk.String(), Approval: e.Approval, Budgets: e.Budgets, Status: "listed"}
		switch {
		case e.Denied != "":
			pe.Status = "denied: " + e.Denied
		case e.Withheld != "":
			pe.Status = "withheld: " + e.Withheld
		}
		out = append(out, pe)
	}
	return out
}

// String names the risk as the plan shows it.
func (r Risk) String() string {
	var parts []string
	switch {
	case r.Destructive:
		parts = append(parts, "destructive")
	case !r.ReadOnly:
		parts = append(parts, "writes")
	default:
		parts = append(parts, "read-only")
	}
	if r.OpenWorld {
		parts = append(parts, "open-world")
	}
	return strings.Join(parts, "+")
}

// String renders budgets compactly: "calls/session=1000 concurrent=8 timeout=2m0s".
func (b Budgets) String() string {
	return fmt.Sprintf("calls/session=%d concurrent=%d timeout=%v", b.CallsPerSession, b.ConcurrentPerTool, b.Timeout.Round(time.Millisecond))
}
