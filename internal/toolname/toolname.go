// Package toolname makes the names under which tools of many servers are
// offered to a model: names that pass the strictest host rule
// (^[a-zA-Z0-9_-]{1,N}$, N = 64 by default), that never collide, that are
// the same for the same set of tools after every restart, and that map
// back exactly to the server and tool they stand for.
//
// The algorithm, deterministic and independent of the order tools are
// listed in:
//
//  1. The candidate is Join(server, tool) (server + "__" + tool by
//     default) with every character outside [A-Za-z0-9_-] replaced by "_".
//  2. A candidate that needed no replacement, fits in N characters and no
//     other tool shares is used as it is.
//  3. Every other tool (a lossy, over-long or shared candidate) gets the
//     candidate cut to N-9 characters, plus "_" and the first 8 hex digits
//     of SHA-256(server NUL tool). Lossy names always take the suffix, so
//     that "a.b" and "a_b" can never swap names when one of them comes or
//     goes. Should two suffixed names still meet, both take more digits.
package toolname

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// DefaultMax is the longest name by default: Claude's and OpenAI's limit.
const DefaultMax = 64

// MinMax is the smallest maximum length a Map accepts: room for a short
// prefix and the 9-character hash suffix.
const MinMax = 16

// Valid reports whether name matches ^[a-zA-Z0-9_-]{1,max}$.
func Valid(name string, max int) bool {
	if name == "" || len(name) > max {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !allowed(name[i]) {
			return false
		}
	}
	return true
}

func allowed(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// Sanitize replaces every character (every rune, not byte) outside
// [A-Za-z0-9_-] with "_", and reports whether it changed anything. The
// empty string becomes "_".
func Sanitize(s string) (string, bool) {
	if s == "" {
		return "_", true
	}
	clean := true
	for i := 0; i < len(s); i++ {
		if !allowed(s[i]) {
			clean = false
			break
		}
	}
	if clean {
		return s, false
	}
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 && allowed(byte(r)) {
			b.WriteByte(byte(r))
		} else {
			b.WriteByte('_')
		}
	}
	return b.String(), true
}

// Key is what a name stands for: a server and the tool's own name there.
type Key struct{ Server, Tool string }

// DefaultJoin is server + "__" + tool.
func DefaultJoin(server, tool string) string { return server + "__" + tool }

// Options configure Build. The zero value is ready to use.
type Options struct {
	// Max is the longest name; zero means DefaultMax. It must be at least
	// MinMax.
	Max int
	// Join makes the candidate name; nil means DefaultJoin.
	Join func(server, tool string) string
	// Fixed gives chosen names for some keys (a policy's overrides). Each
	// must be Valid and unique; they are taken before any other name.
	Fixed map[Key]string
}

// Map is a reversible, collision-free naming of a set of tools.
type Map struct {
	names map[Key]string
	keys  map[string]Key
}

// Build names every key (duplicates are named once). It fails only on
// bad Options: a Max below MinMax or an invalid or duplicate fixed name.
func Build(keys []Key, opts *Options) (*Map, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Max == 0 {
		o.Max = DefaultMax
	}
	if o.Max < MinMax {
		return nil, fmt.Errorf("toolname: maximum length %d is below %d", o.Max, MinMax)
	}
	if o.Join == nil {
		o.Join = DefaultJoin
	}
	m := &Map{names: map[Key]string{}, keys: map[string]Key{}}
	// Fixed names first, in a fixed order so that errors are stable.
	fixed := make([]Key, 0, len(o.Fixed))
	for k := range o.Fixed {
		fixed = append(fixed, k)
	}
	slices.SortFunc(fixed, compareKeys)
	for _, k := range fixed {
		n := o.Fixed[k]
		if !Valid(n, o.Max) {
			return nil, fmt.Errorf("toolname: name %q for %s/%s does not match ^[a-zA-Z0-9_-]{1,%d}$", n, k.Server, k.Tool, o.Max)
		}
		if other, taken := m.keys[n]; taken {
			return nil, fmt.Errorf("toolname: name %q given to both %s/%s and %s/%s", n, other.Server, other.Tool, k.Server, k.Tool)
		}
		m.names[k], m.keys[n] = n, k
	}

	sorted := slices.Clone(keys)
	slices.SortFunc(sorted, compareKeys)
	sorted = slices.Compact(sorted)
	type cand struct {
		k     Key
		name  string
		lossy bool
	}
	var cands []cand
	count := map[string]int{}
	for _, k := range sorted {
		if _, ok := m.names[k]; ok {
			continue
		}
		n, lossy := Sanitize(o.Join(k.Server, k.Tool))
		lossy = lossy || len(n) > o.Max
		cands = append(cands, cand{k, n, lossy})
		if !lossy {
			count[n]++ // a lossy name never takes its candidate: it cannot displace a clean one
		}
	}
	var hashed []cand
	for _, c := range cands {
		if c.lossy || count[c.name] > 1 {
			hashed = append(hashed, c)
			continue
		}
		if _, taken := m.keys[c.name]; taken { // a fixed name took it
			hashed = append(hashed, c)
			continue
		}
		m.names[c.k], m.keys[c.name] = c.name, c.k
	}
	// Suffixed names: 8 hex digits, more for those that still meet one
	// another or a name already given. Each round is over the sorted
	// remainder, so the outcome depends only on the set of keys.
	for digits := 8; len(hashed) > 0; digits += 4 {
		names := make([]string, len(hashed))
		seen := map[string]int{}
		for i, c := range hashed {
			names[i] = suffixed(c.name, c.k, digits, o.Max)
			seen[names[i]]++
		}
		var again []cand
		for i, c := range hashed {
			_, taken := m.keys[names[i]]
			if seen[names[i]] > 1 || taken {
				if digits >= sha256.Size*2 {
					// 64 hex digits of SHA-256 that agree: not going to happen.
					return nil, fmt.Errorf("toolname: cannot name %s/%s", c.k.Server, c.k.Tool)
				}
				again = append(again, c)
				continue
			}
			m.names[c.k], m.keys[names[i]] = names[i], c.k
		}
		hashed = again
	}
	return m, nil
}

func suffixed(name string, k Key, digits, max int) string {
	sum := sha256.Sum256([]byte(k.Server + "\x00" + k.Tool))
	h := hex.EncodeToString(sum[:])[:min(digits, sha256.Size*2)]
	keep := max - len(h) - 1
	if keep < 1 {
		keep = 1
	}
	if len(name) > keep {
		name = name[:keep]
	}
	return name + "_" + h
}

func compareKeys(a, b Key) int {
	if c := strings.Compare(a.Server, b.Server); c != 0 {
		return c
	}
	return strings.Compare(a.Tool, b.Tool)
}

// Name returns the name of key k.
func (m *Map) Name(k Key) (string, bool) {
	n, ok := m.names[k]
	return n, ok
}

// Lookup returns the key a name stands for.
func (m *Map) Lookup(name string) (Key, bool) {
	k, ok := m.keys[name]
	return k, ok
}

// Len returns how many names the Map holds.
func (m *Map) Len() int { return len(m.names) }
