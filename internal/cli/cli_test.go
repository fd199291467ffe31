package cli

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
)

func TestParseReportsABadFlagOnce(t *testing.T) {
	var out bytes.Buffer
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(&out)
	fs.Usage = func() { out.WriteString("USAGE\n") }
	fs.Bool("v", false, "")
	err := Parse(fs, []string{"-nope"}, &out)
	if err == nil || !strings.Contains(err.Error(), "-nope") || !strings.Contains(err.Error(), "-help") {
		t.Fatalf("error %v", err)
	}
	if out.Len() != 0 {
		t.Errorf("printed besides the error: %q", out.String())
	}
	err = Parse(fs, []string{"-help"}, &out)
	if !errors.Is(err, flag.ErrHelp) || out.String() != "USAGE\n" {
		t.Errorf("-help: %v %q", err, out.String())
	}
}

func TestVersionString(t *testing.T) {
	if v := VersionString("mcpc"); !strings.HasPrefix(v, "mcpc ") || len(v) <= len("mcpc ") {
		t.Errorf("%q", v)
	}
	Version = "v9.9.9"
	defer func() { Version = "" }()
	if v := VersionString("mcpc"); !strings.HasPrefix(v, "mcpc v9.9.9") {
		t.Errorf("%q", v)
	}
}
