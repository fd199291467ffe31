package client

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"

	"github.com/winbridge/winbridge/mcp"
)

// minToolNameLen is the least ManagerOptions.MaxToolNameLen honoured: room
// for a few characters of the name and the hash suffix.
const minToolNameLen = 16

// hashLen is the length of the suffix that makes a name unique: "_" and 8
// hex digits of SHA-256 of the server's and the tool's own names.
const hashLen = 9

// aggregateNames names each server tool for the Manager's list: every name
// matches ^[a-zA-Z0-9_-]{1,limit}$, names are unique, and a name depends
// only on the tools listed, never on the order servers answer in, so it is
// the same after a restart.
//
// base(server, tool) gives the preferred name. It is kept when it is
// already a name of that form, fits, no other tool wants it, and it is not
// the hashed name of another tool. Otherwise characters outside the set
// become '_', the name is cut to leave room, and "_" plus 8 hex digits of
// SHA-256 of the server's and the tool's names is appended; should that be
// taken too (a crafted hash collision), the hash also covers a counter,
// assigned in (server, tool) order. Tools that want the same name are all
// renamed: no server takes a name from another by answering first, and a
// tool listed under another tool's hashed name is renamed itself.
//
// pairs lists each server tool once; the result is in the same order.
func aggregateNames(pairs []route, base func(server, tool string) string, limit int) []string {
	limit = max(limit, minToolNameLen)
	want := make([]string, len(pairs))
	count := map[string]int{}
	for i, p := range pairs {
		if b := base(p.server, p.tool); len(b) <= limit && mcp.PortableToolName(b) {
			want[i] = b
			count[b]++
		}
	}
	hashed := make([]bool, len(pairs))
	stems := make([]string, len(pairs))
	// keeper finds the tool that would keep a name: a kept name that is a
	// hashed tool's first-round name yields, and that tool is hashed in
	// turn. A queue, not rescans: a hostile server that chains such names
	// costs linear time.
	keeper := map[string]int{}
	for i, w := range want {
		if w != "" && count[w] == 1 {
			keeper[w] = i
		}
	}
	var queue []int
	for i, w := range want {
		if w == "" || count[w] > 1 {
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		if hashed[i] {
			continue
		}
		p := pairs[i]
		stem := sanitizeToolName(base(p.server, p.tool))
		if len(stem) > limit-hashLen {
			stem = stem[:limit-hashLen]
		}
		hashed[i], stems[i] = true, stem
		if j, ok := keeper[stem+"_"+nameHash(p.server, p.tool, 0)]; ok && !hashed[j] {
			queue = append(queue, j)
		}
	}
	names := make([]string, len(pairs))
	taken := map[string]bool{}
	var order []int
	for i := range pairs {
		if hashed[i] {
			order = append(order, i)
		} else {
			names[i] = want[i]
			taken[want[i]] = true
		}
	}
	slices.SortFunc(order, func(a, b int) int {
		if c := strings.Compare(pairs[a].server, pairs[b].server); c != 0 {
			return c
		}
		return strings.Compare(pairs[a].tool, pairs[b].tool)
	})
	for _, i := range order {
		for n := 0; ; n++ {
			name := stems[i] + "_" + nameHash(pairs[i].server, pairs[i].tool, n)
			if !taken[name] {
				names[i] = name
				taken[name] = true
				break
			}
		}
	}
	return names
}

// sanitizeToolName replaces each character outside [A-Za-z0-9_-] (each
// rune, and each byte of invalid UTF-8) with '_'.
func sanitizeToolName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// nameHash is 8 hex digits of SHA-256 of the server's and the tool's names
// (and n, past the first round).
func nameHash(server, tool string, n int) string {
	h := sha256.New()
	h.Write([]byte(strconv.Itoa(len(server))))
	h.Write([]byte{0})
	h.Write([]byte(server))
	h.Write([]byte{0})
	h.Write([]byte(tool))
	if n > 0 {
		h.Write([]byte{0})
		h.Write([]byte(strconv.Itoa(n)))
	}
	return hex.EncodeToString(h.Sum(nil))[:8]
}
