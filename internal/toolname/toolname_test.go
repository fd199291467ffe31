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
