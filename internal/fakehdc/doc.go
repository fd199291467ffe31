// Package fakehdc is a test double of hdc, the HarmonyOS/OpenHarmony device
// connector, built by the hdc package's tests natively and for Windows (run
// under wine).
//
// The client (Main, the program cmd/hdc) follows real hdc where the tools
// depend on it:
//
//   - it always exits 0 and reports errors on stdout as "[Fail]..." lines,
//     with codes such as E001005 and E005005;
//   - it joins the arguments after the command with spaces, wrapping an
//     argument that holds a space in double quotes, and the device trims
//     white space and one pair of surrounding quotes from a shell command
//     before running it with sh -c;
//   - built for Windows, it loses the characters outside the ANSI code page
//     from its arguments, as hdc's C runtime does;
//   - several targets come from a state directory (environment variable
//     FAKEHDC_STATE); without -t and with more than one connected target,
//     device commands fail as hdc does;
//   - list targets [-v], -v/version, checkserver, shell, file send/recv,
//     install/uninstall, hilog, kill, start, target boot/mount, tmode,
//     smode and fport print what hdc prints (messages modelled on hdc's).
//
// Device commands (shell, hilog) do not run in the client: it sends them
// over TCP to a Daemon, which runs /bin/sh -c in the target's scratch
// directory (<state>/devices/<key>) and streams the merged output back,
// without an exit status, as hdcd does. That is what lets the Windows
// build run a Linux sh: under wine a Windows program can start a Linux
// one, but cannot wait for it or pass it an argument list reliably. The
// daemon kills the device command's process group when the client goes
// away, as hdcd does when its channel closes.
//
// The device is a directory, not a chroot: absolute device paths in file
// send/recv map into it, but a shell command's absolute paths are the
// host's; tests use paths relative to the device directory, the shell's
// working directory.
package fakehdc
