package toolname

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
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
//
// It runs in time linear in the number of keys (plus sorting), whatever
// the names: a server that lists tools each named as the previous one's
// hashed name makes each yield in turn, in one pass over a queue.
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

	// The rest, sorted: every later step walks this order, so the outcome
	// depends only on the set of keys.
	sorted := slices.Clone(keys)
	slices.SortFunc(sorted, compareKeys)
	sorted = slices.Compact(sorted)
	sorted = slices.DeleteFunc(sorted, func(k Key) bool { _, ok := m.names[k]; return ok })
	cands := make([]string, len(sorted))
	lossy := make([]bool, len(sorted))
	count := map[string]int{}
	for i, k := range sorted {
		cands[i], lossy[i] = Sanitize(o.Join(k.Server, k.Tool))
		lossy[i] = lossy[i] || len(cands[i]) > o.Max
		if !lossy[i] {
			count[cands[i]]++ // a lossy name never takes its candidate: it cannot displace a clean one
		}
	}
	// keeper holds the clean candidates that may be kept; queue the tools
	// that take a hash suffix. A kept candidate that is the first choice
	// of a suffixed tool (a tool listed under another's hashed name) yields
	// and is suffixed in turn, so the hashed name stays with the tool it
	// was made for, whoever else is listed.
	keeper := map[string]int{}
	var queue []int
	hashed := make([]bool, len(sorted))
	for i := range sorted {
		_, fixedName := m.keys[cands[i]]
		if lossy[i] || count[cands[i]] > 1 || fixedName {
			hashed[i] = true
			queue = append(queue, i)
		} else {
			keeper[cands[i]] = i
		}
	}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		if j, ok := keeper[suffixed(cands[i], sorted[i], 0, o.Max)]; ok && !hashed[j] {
			hashed[j] = true
			queue = append(queue, j)
		}
	}
	for i, k := range sorted {
		if !hashed[i] {
			m.names[k], m.keys[cands[i]] = cands[i], k
		}
	}
	// Suffixed names, in key order. One taken already (a fixed name, or a
	// crafted collision of 8 hex digits) makes its tool hash a counter too:
	// the name keeps its length, so it still fits Max.
	for i, k := range sorted {
		if !hashed[i] {
			continue
		}
		for n := 0; ; n++ {
			name := suffixed(cands[i], k, n, o.Max)
			if _, taken := m.keys[name]; !taken {
				m.names[k], m.keys[name] = name, k
				break
			}
		}
	}
	return m, nil
}

// suffixLen is the length of the hash suffix: "_" and 8 hex digits.
const suffixLen = 9

// suffixed is name cut to leave room within max, "_", and 8 hex digits of
// the key's hash (with the counter n, past the first choice).
func suffixed(name string, k Key, n, max int) string {
	if len(name) > max-suffixLen {
		name = name[:max-suffixLen]
	}
	return name + "_" + hash(k, n)
}

// hash is 8 hex digits of SHA-256 of the key. The server's length comes
// first so that no two keys hash the same bytes ("a\x00b"/"c" and
// "a"/"b\x00c" would, joined by NUL alone).
func hash(k Key, n int) string {
	h := sha256.New()
	h.Write(strconv.AppendInt(nil, int64(len(k.Server)), 10))
	h.Write([]byte{0})
	h.Write([]byte(k.Server))
	h.Write([]byte{0})
	h.Write([]byte(k.Tool))
	if n > 0 {
		h.Write([]byte{0})
		h.Write(strconv.AppendInt(nil, int64(n), 10))
	}
	return hex.EncodeToString(h.Sum(nil))[:8]
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
