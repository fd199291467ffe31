package mcp

import (
	"regexp"
	"testing"
)

// The hand-written checks that replaced regexps compiled at init (a cost
// every server paid at start-up) must decide exactly as those regexps did.
var (
	keywordOracle   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
	skillNameOracle = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`)
)

func FuzzHandWrittenMatchers(f *testing.F) {
	for _, s := range []string{
		"", "=", "a=", "_=", "9=", "a9=", "minimum=0", "enum=a,b", "a b=", "é=", "A_z0=x",
		"a", "a-b", "-a", "a-", "a--b", "0", "ABC", "pdf-processing",
		"a234567890123456789012345678901234567890123456789012345678901234",
		"a2345678901234567890123456789012345678901234567890123456789012345",
		"a\n", "a\x00", "ab\u00e9",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isKeyword(s), keywordOracle.MatchString(s); got != want {
			t.Errorf("isKeyword(%q) = %v, the regexp says %v", s, got, want)
		}
		if got, want := validSkillName(s), skillNameOracle.MatchString(s); got != want {
			t.Errorf("validSkillName(%q) = %v, the regexp says %v", s, got, want)
		}
	})
}
