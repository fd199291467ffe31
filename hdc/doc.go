// Package hdc offers MCP tools for hdc, the HarmonyOS/OpenHarmony device
// connector, run through a winexec.Executor: hdc.exe from WSL (pshost,
// powershell or direct backend) or a native hdc on Linux and macOS (local
// backend).
//
// AddTools registers them on any mcp.Server in one call: hdc_run,
// hdc_shell, hdc_list_targets, hdc_file_send, hdc_file_recv, hdc_hilog,
// hdc_install and hdc_uninstall (hdc.run... with Options.DottedNames).
//
// hdc itself hides what a caller needs, and the tools recover it:
//
//   - The hdc client always exits 0 and prints errors on stdout as
//     "[Fail]..." lines, often with a code such as E005005. The tools find
//     them (FindFailure) and answer with isError and failCode.
//   - hdc shell never reports the device command's exit status. hdc_shell
//     runs the command in its own sh -c on the device and appends a
//     sentinel carrying $? with a nonce fresh for each call (PlanShell),
//     then strips it from the output (CutSentinel) and returns the status
//     as exitCode.
//   - hdc joins its arguments with spaces and the device runs the result
//     with sh -c, so a device pipeline must be one argument after "shell";
//     the tools always pass it so, so pipes run on the device.
//   - hdc.exe receives its arguments through the Windows ANSI code page:
//     characters outside it are lost. Commands holding non-ASCII text,
//     double quotes or backslashes travel base64-encoded (NeedsEncoding)
//     and are decoded on the device by toybox's base64, byte for byte.
//   - With several devices connected, commands without -t fail; the tools
//     check first (hdc list targets) and list the keys in their error.
//   - hilog without -x streams forever; hdc_hilog is always bounded
//     (hilog -x | tail -n N on the device).
//   - Local paths for file send/recv and install are made absolute here
//     and converted for hdc.exe (winexec.WSLToWin), since hdc resolves
//     relative paths against its own working directory.
//
// hdc finds its command at any position of its arguments, before reading
// options, and re-splits the arguments before the command into global
// options (ParseArgv models this from hdc's source). Commands that change
// the device, the hdc server or the host (install, uninstall, sideload,
// target boot, target mount, smode, tmode, kill, killall-sub, spawn-sub,
// keygen, tconn, reconnect, update, flash, erase, format, start with -r,
// fport and rport but fport ls), commands that copy files between this
// machine and the device (file recv; file send, since hdc_shell reads
// the copy back, except for hdc_file_send of a file inside
// Options.LocalRoots) and global options that change how the
// server runs (-m, -s with a non-loopback address, -e...) run only with
// confirm: true, whichever tool reaches them; dryRun: true returns the
// exact argv without running anything. hilog parse, which hdc runs on the
// host through a shell, never runs. Connect keys must match the grammar of
// real keys (CheckConnectKey).
//
// docs/HDC.md in the repository documents every tool with an example call
// and result.
package hdc
