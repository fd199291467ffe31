package main

import (
	"os"
	"testing"

	"github.com/winbridge/winbridge/internal/wintest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	wintest.Cleanup()
	os.Exit(code)
}
