package dosdevice

import "strings"

// Name reports whether Windows opens a path whose last component is c as a
// DOS device: CON, PRN, AUX, NUL, COM0-9 or LPT0-9 (superscript digits
// too), CONIN$ or CONOUT$, in any case, whatever follows a dot or a colon
// and with trailing spaces (COM1.txt, "NUL .x", nul:). Before Windows 11
// this holds in any directory (C:\tmp\COM1.txt is the serial port).
func Name(c string) bool {
	if i := strings.IndexAny(c, ".:"); i >= 0 {
		c = c[:i]
	}
	c = strings.TrimRight(c, " ")
	if len(c) < 3 || len(c) > 7 {
		return false // the longest name, conout$, is 7 bytes; "com¹" is 5
	}
	b := []byte(c)
	for i, ch := range b {
		if 'A' <= ch && ch <= 'Z' {
			b[i] = ch + ('a' - 'A')
		}
	}
	switch string(b) {
	case "con", "prn", "aux", "nul", "conin$", "conout$":
		return true
	}
	if len(b) >= 4 && (string(b[:3]) == "com" || string(b[:3]) == "lpt") {
		switch string(b[3:]) {
		case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
			return true
		}
	}
	return false
}

// Path reports whether Windows opens p as a DOS device by its last
// component, with either slash as a separator.
func Path(p string) bool {
	if i := strings.LastIndexAny(p, `\/`); i >= 0 {
		p = p[i+1:]
	}
	return Name(p)
}
