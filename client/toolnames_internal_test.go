package client

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var portable = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func defaultBase(server, tool string) string { return server + "__" + tool }

// randomName draws names of the kinds upstream servers and configurations
// send: plain, dotted, unicode, invalid UTF-8, empty, up to 300 bytes.
func randomName(r *rand.Rand) string {
	parts := []string{"read", "file", ".", "_", "-", "__", "文件", "é", "😀", " ", "/", ":", "\xff", "A", "9", "x"}
	var b strings.Builder
	switch r.IntN(6) {
	case 0:
		return strings.Repeat("a", 250+r.IntN(50)) // over every cap
	case 1:
		return ""
	}
	for n := r.IntN(12); n >= 0; n-- {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	return b.String()
}

// Every aggregated name passes the strictest host rule within the cap, is
// unique, maps back to exactly its tool, does not depend on the order of
// the lists, and names that need no change keep them.
func TestAggregateNamesProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 500 {
		capLen := []int{64, 60, 40, 16, 5}[round%5]
		servers := []string{randomName(r), "srv", "my.server", "s"}
		var pairs []route
		seen := map[route]bool{}
		for n := r.IntN(40); n >= 0; n-- {
			p := route{servers[r.IntN(len(servers))], randomName(r)}
			if r.IntN(5) == 0 && len(pairs) > 0 {
				// a collision on purpose: another server's tool named so
				// that the default names meet
				q := pairs[r.IntN(len(pairs))]
				p = route{"srv", strings.TrimPrefix(defaultBase(q.server, q.tool), "srv__")}
				if !strings.HasPrefix(defaultBase(q.server, q.tool), "srv__") {
					p = route{q.server, q.tool + "x"}
				}
			}
			if !seen[p] {
				seen[p] = true
				pairs = append(pairs, p)
			}
		}
		names := aggregateNames(pairs, defaultBase, capLen)
		limit := max(capLen, minToolNameLen)
		back := map[string]route{}
		for i, n := range names {
			if !portable.MatchString(n) || len(n) > limit {
				t.Fatalf("cap %d: %q -> %q", capLen, pairs[i], n)
			}
			if prev, dup := back[n]; dup {
				t.Fatalf("%q and %q both named %q", prev, pairs[i], n)
			}
			back[n] = pairs[i]
		}
		// Order-independent: the same tools listed in another order get
		// the same names.
		perm := r.Perm(len(pairs))
		shuffled := make([]route, len(pairs))
		for i, j := range perm {
			shuffled[i] = pairs[j]
		}
		for i, n := range aggregateNames(shuffled, defaultBase, capLen) {
			if back[n] != shuffled[i] {
				t.Fatalf("order changed the name of %q: %q", shuffled[i], n)
			}
		}
		// Kept: a default name that passes, fits and is wanted once.
		wanted := map[string]int{}
		for _, p := range pairs {
			wanted[defaultBase(p.server, p.tool)]++
		}
		for i, p := range pairs {
			if b := defaultBase(p.server, p.tool); portable.MatchString(b) && len(b) <= limit && wanted[b] == 1 && names[i] != b {
				t.Fatalf("%q renamed %q though %q passes", p, names[i], b)
			}
		}
	}
}

func TestAggregateNamesExamples(t *testing.T) {
	long := strings.Repeat("x", 300)
	pairs := []route{
		{"fs", "read_file"},
		{"fs", "read.file"},
		{"my.server", "echo"},
		{"文件", "列表"},
		{"a", "b__c"},
		{"a__b", "c"},
		{"long", long},
	}
	names := aggregateNames(pairs, defaultBase, 64)
	if names[0] != "fs__read_file" {
		t.Errorf("plain name changed: %q", names[0])
	}
	for i, prefix := range map[int]string{1: "fs__read_file_", 2: "my_server__echo_", 3: "_____", 4: "a__b__c_", 5: "a__b__c_", 6: "long__xxx"} {
		if !strings.HasPrefix(names[i], prefix) {
			t.Errorf("%q -> %q, want a name starting %q", pairs[i], names[i], prefix)
		}
	}
	if names[4] == names[5] {
		t.Errorf("a/b__c and a__b/c share %q", names[4])
	}
	if len(names[6]) != 64 {
		t.Errorf("long name %d bytes", len(names[6]))
	}
	// Stable: the same tool gets the same name in another run, with other
	// tools around it.
	again := aggregateNames([]route{{"zzz", "other"}, {"my.server", "echo"}}, defaultBase, 64)
	if again[1] != names[2] {
		t.Errorf("my.server/echo: %q then %q", names[2], again[1])
	}
}

// A tool listed under another tool's hashed name cannot take it: the
// renamed tool keeps its name, the squatter is renamed, routes stay exact.
func TestAggregateNamesHashSquatting(t *testing.T) {
	victim := route{"good", "read.file"}
	want := aggregateNames([]route{victim}, defaultBase, 64)[0]
	squat := route{"good", strings.TrimPrefix(want, "good__")}
	for _, pairs := range [][]route{{victim, squat}, {squat, victim}} {
		names := aggregateNames(pairs, defaultBase, 64)
		for i, p := range pairs {
			if p == victim && names[i] != want || p == squat && (names[i] == want || !strings.HasPrefix(names[i], want+"_")) {
				t.Errorf("%q: %q; the victim's name is %q", p, names[i], want)
			}
		}
	}
}

// FuzzAggregateNames: whatever servers and tools are called, the names
// pass the host rule within the cap, are unique, and do not depend on the
// order of the list.
func FuzzAggregateNames(f *testing.F) {
	f.Add("fs", "read.file", "fs", "read_file", "my.server", "echo", 64)
	f.Add("a", "b__c", "a__b", "c", "文件", "列表", 40)
	f.Add("good", "read.file", "good", "read_file_0d6a5ffd", "", "", 16)
	f.Add(strings.Repeat("s", 300), "t", "s", strings.Repeat("t", 300), "\xff", "\x00", 5)
	f.Fuzz(func(t *testing.T, s1, t1, s2, t2, s3, t3 string, limit int) {
		pairs := []route{{s1, t1}}
		for _, p := range []route{{s2, t2}, {s3, t3}} {
			if !slices.Contains(pairs, p) {
				pairs = append(pairs, p)
			}
		}
		names := aggregateNames(pairs, defaultBase, limit)
		capLen := max(limit, minToolNameLen)
		seen := map[string]route{}
		for i, n := range names {
			if !regexp.MustCompile(`^[a-zA-Z0-9_-]+$`).MatchString(n) || len(n) > capLen {
				t.Fatalf("cap %d: %q -> %q", limit, pairs[i], n)
			}
			if prev, dup := seen[n]; dup {
				t.Fatalf("%q and %q both %q", prev, pairs[i], n)
			}
			seen[n] = pairs[i]
		}
		slices.Reverse(pairs)
		for i, n := range aggregateNames(pairs, defaultBase, limit) {
			if seen[n] != pairs[i] {
				t.Fatalf("order changed the name of %q to %q", pairs[i], n)
			}
		}
	})
}

// A server can list tools each named as the previous one's renamed name:
// each yields in turn, in one pass, and the names stay unique and exact.
func TestAggregateNamesChain(t *testing.T) {
	pairs := []route{{"evil", "a.b"}}
	for range 5000 {
		prev := pairs[len(pairs)-1]
		pairs = append(pairs, route{"evil", strings.TrimPrefix(renamed(prev), "evil__")})
	}
	names := aggregateNames(pairs, defaultBase, 64)
	seen := map[string]bool{}
	for i, n := range names {
		if seen[n] || !portable.MatchString(n) {
			t.Fatalf("%q: %q", pairs[i], n)
		}
		seen[n] = true
		if i > 0 && n == defaultBase(pairs[i].server, pairs[i].tool) {
			t.Fatalf("%q kept the renamed name of %q", pairs[i], pairs[i-1])
		}
	}
}

// renamed is the name p takes when it has to be renamed: its name beside
// a decoy that wants the same preferred name.
func renamed(p route) string {
	decoy := route{"decoy", ""}
	base := func(server, tool string) string {
		if (route{server, tool}) == decoy {
			return defaultBase(p.server, p.tool)
		}
		return defaultBase(server, tool)
	}
	return aggregateNames([]route{p, decoy}, base, 64)[0]
}
