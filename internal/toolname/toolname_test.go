package toolname

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

var pattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestKeepsCleanNames(t *testing.T) {
	m, err := Build([]Key{{"fs", "read_file"}, {"git", "log"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := m.Name(Key{"fs", "read_file"}); n != "fs__read_file" {
		t.Errorf("got %q", n)
	}
}

func TestLossyNamesAlwaysHashed(t *testing.T) {
	// "win.exec" and "win_exec" sanitize alike; the lossy one never takes
	// the plain name, with or without the other present.
	for _, keys := range [][]Key{{{"b", "win.exec"}}, {{"b", "win.exec"}, {"b", "win_exec"}}} {
		m, err := Build(keys, nil)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := m.Name(Key{"b", "win.exec"})
		if !strings.HasPrefix(n, "b__win_exec_") || len(n) != len("b__win_exec_")+8 {
			t.Errorf("%v: got %q", keys, n)
		}
		if len(keys) == 2 {
			if n2, _ := m.Name(Key{"b", "win_exec"}); n2 != "b__win_exec" {
				t.Errorf("clean name changed: %q", n2)
			}
		}
	}
}

func TestCollidingCleanNames(t *testing.T) {
	a, b := Key{"a__b", "c"}, Key{"a", "b__c"}
	m, err := Build([]Key{a, b}, nil)
	if err != nil {
		t.Fatal(err)
	}
	na, _ := m.Name(a)
	nb, _ := m.Name(b)
	if na == nb || !pattern.MatchString(na) || !pattern.MatchString(nb) {
		t.Fatalf("%q %q", na, nb)
	}
}

func TestFixedNames(t *testing.T) {
	k := Key{"fs", "read_file"}
	m, err := Build([]Key{k, {"x", "y"}}, &Options{Fixed: map[Key]string{k: "x__y"}})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := m.Name(k); n != "x__y" {
		t.Errorf("fixed: %q", n)
	}
	if n, _ := m.Name(Key{"x", "y"}); n == "x__y" || !pattern.MatchString(n) {
		t.Errorf("displaced: %q", n)
	}
	if _, err := Build(nil, &Options{Fixed: map[Key]string{k: "a.b"}}); err == nil {
		t.Error("invalid fixed name accepted")
	}
	if _, err := Build(nil, &Options{Fixed: map[Key]string{k: "a", {"b", "c"}: "a"}}); err == nil {
		t.Error("duplicate fixed name accepted")
	}
	if _, err := Build(nil, &Options{Max: 10}); err == nil {
		t.Error("Max 10 accepted")
	}
}

// randomName mixes what hostile servers send: unicode, dots, spaces,
// slashes, very long names and near-duplicates.
func randomName(r *rand.Rand) string {
	alphabet := []string{"a", "b", "Z", "0", "_", "-", ".", "/", " ", "é", "中", "🙂", "\x00", "__", "\u200b"}
	n := r.IntN(12)
	if r.IntN(8) == 0 {
		n = 150 + r.IntN(150) // up to 300 pieces
	}
	var b strings.Builder
	for range n {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// TestPropertyNames: over generated sets of names, every name matches the
// pattern (for several maxima), names are unique, the same set in another
// order gives the same names, and every name maps back to its key.
func TestPropertyNames(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := range 200 {
		var keys []Key
		servers := []string{"fs", "git", "a.b", "服务", strings.Repeat("s", 70), ""}
		for range 1 + r.IntN(60) {
			k := Key{servers[r.IntN(len(servers))], randomName(r)}
			keys = append(keys, k)
			if r.IntN(5) == 0 {
				keys = append(keys, k) // duplicates
			}
		}
		for _, max := range []int{64, 60, 16} {
			m, err := Build(keys, &Options{Max: max})
			if err != nil {
				t.Fatal(err)
			}
			re := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,` + strconv.Itoa(max) + `}$`)
			seen := map[string]Key{}
			for _, k := range keys {
				n, ok := m.Name(k)
				if !ok {
					t.Fatalf("iter %d: %+v unnamed", iter, k)
				}
				if !re.MatchString(n) || !utf8.ValidString(n) {
					t.Fatalf("iter %d max %d: %q does not match", iter, max, n)
				}
				if other, dup := seen[n]; dup && other != k {
					t.Fatalf("iter %d: %q names %+v and %+v", iter, n, other, k)
				}
				seen[n] = k
				if back, ok := m.Lookup(n); !ok || back != k {
					t.Fatalf("iter %d: %q maps back to %+v, want %+v", iter, n, back, k)
				}
			}
			shuffled := append([]Key(nil), keys...)
			r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
			m2, _ := Build(shuffled, &Options{Max: max})
			for _, k := range keys {
				a, _ := m.Name(k)
				b, _ := m2.Name(k)
				if a != b {
					t.Fatalf("iter %d: unstable name for %+v: %q then %q", iter, k, a, b)
				}
			}
		}
	}
}

func FuzzBuild(f *testing.F) {
	f.Add("fs", "read.file", "fs", "read_file")
	f.Add("", "", "中", "🙂")
	f.Add("a\x00_", "_c", "a", "_\x00_c")                    // keys that run together
	f.Add("good", "read.file", "good", "read_file_8475f339") // a squatter
	f.Add("s", "tool.0123482", "s", "tool.0172405")          // 8 hex digits collide
	f.Fuzz(func(t *testing.T, s1, t1, s2, t2 string) {
		keys := []Key{{s1, t1}, {s2, t2}}
		m, err := Build(keys, nil)
		if err != nil {
			t.Fatal(err)
		}
		n1, _ := m.Name(keys[0])
		n2, _ := m.Name(keys[1])
		if !pattern.MatchString(n1) || !pattern.MatchString(n2) {
			t.Fatalf("%q %q", n1, n2)
		}
		if keys[0] != keys[1] && n1 == n2 {
			t.Fatalf("collision %q", n1)
		}
	})
}

func name(t *testing.T, m *Map, k Key) string {
	t.Helper()
	n, ok := m.Name(k)
	if !ok {
		t.Fatalf("%+v unnamed", k)
	}
	if back, _ := m.Lookup(n); back != k {
		t.Fatalf("%q maps back to %+v, want %+v", n, back, k)
	}
	return n
}

// A tool listed under another tool's hashed name cannot take it: the
// renamed tool keeps the name it has alone, and the squatter is renamed.
func TestHashSquatting(t *testing.T) {
	victim := Key{"good", "read.file"}
	alone, _ := Build([]Key{victim}, nil)
	want := name(t, alone, victim)
	squat := Key{"good", strings.TrimPrefix(want, "good__")}
	for _, keys := range [][]Key{{victim, squat}, {squat, victim}} {
		m, err := Build(keys, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n := name(t, m, victim); n != want {
			t.Errorf("victim renamed %q, alone %q", n, want)
		}
		if n := name(t, m, squat); !strings.HasPrefix(n, want+"_") {
			t.Errorf("squatter named %q", n)
		}
	}
}

// A server can list tools each named as the previous one's hashed name:
// each yields in turn, in one pass over a queue (a rescan per yield would
// be quadratic), and the names stay unique and exact.
func TestSquattingChain(t *testing.T) {
	keys := []Key{{"evil", "a.b"}}
	for range 10000 {
		prev := keys[len(keys)-1]
		c, _ := Sanitize(DefaultJoin(prev.Server, prev.Tool))
		keys = append(keys, Key{"evil", strings.TrimPrefix(suffixed(c, prev, 0, DefaultMax), "evil__")})
	}
	m, err := Build(keys, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, k := range keys {
		n := name(t, m, k)
		if seen[n] || !pattern.MatchString(n) {
			t.Fatalf("%+v: %q", k, n)
		}
		seen[n] = true
		if i > 0 && n == DefaultJoin(k.Server, k.Tool) {
			t.Fatalf("%+v kept the hashed name of %+v", k, keys[i-1])
		}
	}
}

// Keys whose server and tool run together the same way ("a\x00_"/"_c"
// and "a"/"_\x00_c") still get names of their own: the hash knows where
// the server ends.
func TestAmbiguousKeys(t *testing.T) {
	a, b := Key{"a\x00_", "_c"}, Key{"a", "_\x00_c"}
	m, err := Build([]Key{a, b}, nil)
	if err != nil {
		t.Fatal(err)
	}
	na, nb := name(t, m, a), name(t, m, b)
	if na == nb || len(na) != len(nb) || !pattern.MatchString(na) {
		t.Errorf("%q %q", na, nb)
	}
}

// Two tools whose 8 hex digits collide (a pair found offline by brute
// force) and a fixed name on a tool's suffixed name: the later tool takes
// a counter into its hash, and every name keeps 8 digits and fits the
// smallest maximum.
func TestTakenSuffixedNames(t *testing.T) {
	a, b := Key{"s", "tool.0123482"}, Key{"s", "tool.0172405"}
	m, err := Build([]Key{b, a}, &Options{Max: MinMax})
	if err != nil {
		t.Fatal(err)
	}
	if na, nb := name(t, m, a), name(t, m, b); na != "s__tool_2467cde6" || nb == na || len(nb) != MinMax {
		t.Errorf("%q %q", na, nb)
	}
	c := Key{"x", "y.z"}
	alone, _ := Build([]Key{c}, nil)
	first := name(t, alone, c)
	f := Key{"fixed", "f"}
	m, err = Build([]Key{c, f}, &Options{Fixed: map[Key]string{f: first}})
	if err != nil {
		t.Fatal(err)
	}
	if n := name(t, m, c); n == first || !strings.HasPrefix(n, "x__y_z_") || len(n) != len(first) {
		t.Errorf("%q beside fixed %q", n, first)
	}
}

// TestPropertyWhoKeepsWhat: over generated sets, with and without fixed
// names and with another Join, a lossy or over-long tool has the name it
// would have alone (so tools coming and going never move it), and a clean
// candidate that fits, is wanted once, is no fixed name and no other
// tool's suffixed name is kept.
func TestPropertyWhoKeepsWhat(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	joins := []func(s, t string) string{nil, func(s, t string) string { return "_" + s + "." + t }}
	for iter := range 200 {
		var keys []Key
		servers := []string{"fs", "a.b", "服务", strings.Repeat("s", 70)}
		for range 1 + r.IntN(40) {
			keys = append(keys, Key{servers[r.IntN(len(servers))], randomName(r)})
		}
		if r.IntN(3) == 0 { // a squatter of a lossy key's suffixed name
			k := keys[r.IntN(len(keys))]
			c, _ := Sanitize(DefaultJoin(k.Server, k.Tool))
			keys = append(keys, Key{"fs", strings.TrimPrefix(suffixed(c, k, 0, DefaultMax), "fs__")})
		}
		opts := &Options{Join: joins[iter%2]}
		if iter%3 == 0 {
			opts.Fixed = map[Key]string{keys[0]: "fixed", {"fs", "x"}: "fs__read_file"}
		}
		join := opts.Join
		if join == nil {
			join = DefaultJoin
		}
		m, err := Build(keys, opts)
		if err != nil {
			t.Fatal(err)
		}
		wanted := map[string]int{}
		for _, k := range compact(keys) {
			if c, lossy := Sanitize(join(k.Server, k.Tool)); !lossy && len(c) <= DefaultMax {
				wanted[c]++
			}
		}
		suffixes := map[string]bool{}
		for _, k := range keys {
			c, _ := Sanitize(join(k.Server, k.Tool))
			suffixes[suffixed(c, k, 0, DefaultMax)] = true
		}
		for _, k := range keys {
			if _, ok := opts.Fixed[k]; ok {
				continue
			}
			n := name(t, m, k)
			c, lossy := Sanitize(join(k.Server, k.Tool))
			if lossy || len(c) > DefaultMax {
				alone, _ := Build([]Key{k}, &Options{Join: opts.Join})
				if a, _ := alone.Name(k); a != n {
					t.Fatalf("iter %d: %+v is %q in the set, %q alone", iter, k, n, a)
				}
				continue
			}
			fixedName := c == "fixed" || c == "fs__read_file" && opts.Fixed != nil
			if wanted[c] == 1 && !fixedName && !suffixes[c] && n != c {
				t.Fatalf("iter %d: %+v renamed %q", iter, k, n)
			}
		}
	}
}

func compact(keys []Key) []Key {
	seen := map[Key]bool{}
	var out []Key
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}
