package main

import (
	"io"
	"slices"
	"testing"
)

// TestHDCLocalRootsSetting: the directories hdc_file_send may read
// without confirm come from WINBRIDGE_HDC_LOCAL_ROOTS or -hdc-local-roots
// (which wins); none by default, so every send needs confirm.
func TestHDCLocalRootsSetting(t *testing.T) {
	env := func(k string) string {
		if k == "WINBRIDGE_HDC_LOCAL_ROOTS" {
			return "/srv/haps, /mnt/c/build"
		}
		return ""
	}
	s, err := parseSettings(nil, func(string) string { return "" }, io.Discard)
	if err != nil || s.hdcRoots != nil {
		t.Fatalf("default: %v %v", s, err)
	}
	s, err = parseSettings(nil, env, io.Discard)
	if err != nil || !slices.Equal(s.hdcRoots, []string{"/srv/haps", "/mnt/c/build"}) {
		t.Fatalf("from the environment: %q %v", s.hdcRoots, err)
	}
	s, err = parseSettings([]string{"-hdc-local-roots", "/x"}, env, io.Discard)
	if err != nil || !slices.Equal(s.hdcRoots, []string{"/x"}) {
		t.Fatalf("flag: %q %v", s.hdcRoots, err)
	}
}
