// Package wintest is test support for packages that run Windows programs:
// it cross-compiles Go programs for windows/amd64, compiles C with mingw-w64,
// and runs them under wine in a private WINEPREFIX shared by one test binary.
//
// Missing tools are a skip with the reason, never a silent pass, unless
// WINBRIDGE_REQUIRE_PEERS=1 (set by CI), which turns the skip into a failure.
// Only _test.go files may import this package.
package wintest
