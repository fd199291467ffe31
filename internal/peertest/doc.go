// Package peertest is test support for driving real third-party MCP peers
// (the TypeScript SDK, the reference servers, the conformance suite, the
// inspector, a PowerShell parser) and programs built from this module.
//
// It is imported only by _test.go files.
//
// The peers live in internal/peers/node (an npm package run by the system
// Node.js) and internal/peers/node22 (a Node.js 22 binary from the npm
// registry, for tools that need Node >= 22). scripts/setup installs both.
//
// # Policy for missing peers
//
// When a peer is not installed, the helpers call [Unavailable]: the test is
// skipped with a message that names what is missing and how to install it.
// With WINBRIDGE_REQUIRE_PEERS=1 in the environment (scripts/test and CI set
// it) the same condition fails the test instead, so CI can never pass by
// skipping. Run `go test -v` locally to see the skip reasons.
//
// # Helpers
//
//   - [RepoRoot], [NodeDir]: where things are.
//   - [Node], [Node22], [LookPath]: binaries, or skip/fail.
//   - [NodeCmd], [RunNode], [RunNode22]: run a script from internal/peers/node;
//     [ExitCode] reads the exit status from their error.
//   - [ParsePowerShell]: syntax-check a PowerShell script.
//   - [EverythingServer], [FilesystemServer], [TSServer], [Conformance],
//     [InspectorCLI]: argv prefixes for the peers.
//   - [BuildGo], [BuildGoEnv]: build a package of this module once per test
//     binary and return the executable's path.
package peertest
