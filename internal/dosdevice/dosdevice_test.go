package dosdevice

import "testing"

func TestName(t *testing.T) {
	for _, c := range []string{"NUL", "nul", "Con", "PRN", "aux", "COM1", "com9", "LPT0", "lpt3", "COM¹", "lpt²", "CONIN$", "conout$",
		"NUL.txt", "nul.exe", "COM1.tar.gz", "NUL .x", "CON ", "nul:", "aux:x", "Con  .log"} {
		if !Name(c) {
			t.Errorf("Name(%q) = false, want true", c)
		}
	}
	for _, c := range []string{"", "NU", "NULL", "COM", "COM10", "COM⁴", "LPT", "CONIN", "conout", "xnul", "nul2", ".nul", " NUL", "CONSOLE", "auxiliary.txt", "nu l"} {
		if Name(c) {
			t.Errorf("Name(%q) = true, want false", c)
		}
	}
}

func TestPath(t *testing.T) {
	for _, p := range []string{`C:\tmp\COM1.txt`, "/data/nul", `dir/sub\con.log`, "AUX"} {
		if !Path(p) {
			t.Errorf("Path(%q) = false, want true", p)
		}
	}
	for _, p := range []string{`C:\nul\x.txt`, "/data/file", `con\x`} {
		if Path(p) {
			t.Errorf("Path(%q) = true, want false", p)
		}
	}
}

// FuzzName: the rule agrees with a plain reading of it on every input.
func FuzzName(f *testing.F) {
	for _, s := range []string{"NUL", "com1.txt", "CONOUT$ ", "lpt¹:", "COM⁴", "x"} {
		f.Add(s)
	}
	devices := map[string]bool{"con": true, "prn": true, "aux": true, "nul": true, "conin$": true, "conout$": true}
	for _, p := range []string{"com", "lpt"} {
		for _, d := range []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³"} {
			devices[p+d] = true
		}
	}
	f.Fuzz(func(t *testing.T, c string) {
		base := c
		for i := 0; i < len(base); i++ {
			if base[i] == '.' || base[i] == ':' {
				base = base[:i]
				break
			}
		}
		for len(base) > 0 && base[len(base)-1] == ' ' {
			base = base[:len(base)-1]
		}
		lower := []rune{}
		for _, r := range base {
			if r >= 'A' && r <= 'Z' {
				r += 'a' - 'A'
			}
			lower = append(lower, r)
		}
		if want := devices[string(lower)]; Name(c) != want {
			t.Fatalf("Name(%q) = %v, want %v", c, !want, want)
		}
	})
}
