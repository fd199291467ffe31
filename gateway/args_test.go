package gateway

import "testing"

func TestDuplicateMember(t *testing.T) {
	for raw, want := range map[string]string{
		`{"a":1,"b":2}`:                        "",
		`{"a":1,"a":2}`:                        ".a",
		`{"a":1,"\u0061":2}`:                   ".a",
		`{"x":{"y":[1,{"z":1,"z":2}]}}`:        ".x.y[1].z",
		`[{"a":1},{"b":1,"b":2}]`:              "[1].b",
		`{"p":{"q":1},"r":{"q":1}}`:            "",
		`{"a":{"a":1}}`:                        "",
		`{"k1":1,"k2":2,"k3":3,"k4":4,"k2":5}`: ".k2",
	} {
		if got := duplicateMember([]byte(raw)); got != want {
			t.Errorf("%s: %q, want %q", raw, got, want)
		}
	}
	clean := []byte(`{"text":"hello, world","n":{"a":[1,2,{"b":true}]}}`)
	if n := testing.AllocsPerRun(100, func() { duplicateMember(clean) }); n != 0 {
		t.Errorf("%v allocations for arguments without duplicates", n)
	}
}
