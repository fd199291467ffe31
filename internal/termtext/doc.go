// Package termtext makes text that a peer chose safe to show on a
// terminal: a tool's error built from a device's output, a debugger's
// output of a target's memory, a dump's comment. Such text may hold escape
// sequences that move the cursor, retitle or clear the terminal, or a
// bidirectional override that reorders what the reader sees.
//
// Why a package: four programs (hdc, the cdb server, the WinDbg extension,
// mcpc) show such text, and each had its own copy of the rule, some weaker
// than others.
package termtext
