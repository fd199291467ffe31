package dbgcmd

import "strings"

// dmlPrintf refuses .printf /D with a conversion in its format. With /D
// the output is DML (the .printf page), and a conversion puts text that
// is not on the line into it: %c a character from a number, %ma and %mu
// a string of the target's memory, %y a symbol name. So "%clink" becomes
// <link, and the link's command (".sh%cll" is .shell) runs when the user
// clicks it in WinDbg; the literal <link that scanConstructs looks for
// never appears. Which conversions could build markup is not worth
// telling apart: any one but %% is refused, a DML format without one
// (.printf /D "<b>x</b>") is not.
func dmlPrintf(s string, h *hits) {
	last := lastConversion(s)
	// next returns the first sub at or after i, or len(s), reusing at,
	// the one found before, while it is not behind i: the searches only
	// move forward, so a megabyte of ".printf /d" is read in linear time.
	next := func(at, i int, sub string) int {
		if at >= i {
			return at
		}
		if k := strings.Index(s[i:], sub); k >= 0 {
			return i + k
		}
		return len(s)
	}
	quote, slash, dash := -1, -1, -1
	for i := 0; ; {
		j := strings.Index(s[i:], "printf")
		if j < 0 {
			return
		}
		j += i
		i = j + len("printf")
		dot := prevNonBlank(s, j)
		if dot < 0 || s[dot] != '.' || last < i {
			continue
		}
		// The options stand before the format string.
		quote, slash, dash = next(quote, i, `"`), next(slash, i, "/d"), next(dash, i, "-d")
		if min(slash, dash) < quote {
			h.add(dot, rule{Indirect, "/D writes DML whose markup its conversions (%c, %ma, %mu, %y) can build: a link whose command runs when clicked"}, ".printf /d")
			return
		}
	}
}

// lastConversion returns the index of the last '%' of s that is not half
// of "%%", or -1.
func lastConversion(s string) int {
	last := -1
	for k := 0; k < len(s); k++ {
		if s[k] != '%' {
			continue
		}
		if k+1 < len(s) && s[k+1] == '%' {
			k++
			continue
		}
		last = k
	}
	return last
}
