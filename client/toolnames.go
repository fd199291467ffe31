package client

import (
	"github.com/winbridge/winbridge/internal/toolname"
)

// minToolNameLen is the least ManagerOptions.MaxToolNameLen honoured: room
// for a few characters of the name and the hash suffix.
const minToolNameLen = toolname.MinMax

// aggregateNames names each server tool for the Manager's list with
// package toolname, the naming the gateway facade uses too: every name
// matches ^[a-zA-Z0-9_-]{1,limit}$, names are unique, and a name depends
// only on the tools listed, never on the order servers answer in, so it is
// the same after a restart. base(server, tool) gives the preferred name
// (toolname.Options.Join); limits below minToolNameLen mean
// minToolNameLen.
//
// pairs lists each server tool once; the result is in the same order.
func aggregateNames(pairs []route, base func(server, tool string) string, limit int) []string {
	keys := make([]toolname.Key, len(pairs))
	for i, p := range pairs {
		keys[i] = toolname.Key{Server: p.server, Tool: p.tool}
	}
	// Build fails only on bad Options, and these are good.
	m, err := toolname.Build(keys, &toolname.Options{Max: max(limit, minToolNameLen), Join: base})
	if err != nil {
		panic("client: toolname.Build refused good options: " + err.Error())
	}
	names := make([]string, len(pairs))
	for i, k := range keys {
		names[i], _ = m.Name(k)
	}
	return names
}
