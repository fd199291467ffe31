package mcp_test

import (
	"errors"
	"testing"

	"github.com/winbridge/winbridge/mcp"
)

// TestCheckVersionNilIsNil: the answer for an offered revision, kept in an
// error variable as callers do, is nil (a typed nil *Error was not), and a
// refusal carries the unsupported-version code.
func TestCheckVersionNilIsNil(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	var err error = srv.CheckVersion(mcp.Version20251125)
	if err != nil {
		t.Fatalf("CheckVersion(%s) = %#v, want nil", mcp.Version20251125, err)
	}
	err = srv.CheckVersion("1999-01-01")
	var e *mcp.Error
	if !errors.As(err, &e) || e.Code != mcp.CodeUnsupportedProtocolVersion {
		t.Fatalf("CheckVersion(1999-01-01) = %v, want an *Error with code %d", err, mcp.CodeUnsupportedProtocolVersion)
	}
}
