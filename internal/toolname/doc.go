// Package toolname makes the names under which tools of many servers are
// offered to a model: names that pass the strictest host rule
// (^[a-zA-Z0-9_-]{1,N}$, N = 64 by default), that never collide, that are
// the same for the same set of tools after every restart, and that map
// back exactly to the server and tool they stand for. It is the one
// naming of the project: client.Manager and the gateway facade both use
// it.
//
// The algorithm, deterministic and independent of the order tools are
// listed in:
//
//  1. Fixed names (Options.Fixed, a policy's choice) are taken first.
//  2. The candidate is Join(server, tool) (server + "__" + tool by
//     default) with every character outside [A-Za-z0-9_-] replaced by "_".
//  3. A candidate that needed no replacement, fits in N characters, that
//     no other tool shares, that no fixed name took, and that is not
//     another tool's hashed name (step 4) is used as it is.
//  4. Every other tool (a lossy, over-long, shared or yielded candidate)
//     gets the candidate cut to N-9 characters, plus "_" and the first 8
//     hex digits of SHA-256 of its server's and tool's names. Lossy names
//     always take the suffix, so that "a.b" and "a_b" can never swap names
//     when one of them comes or goes; tools that share a candidate are all
//     suffixed, so no server takes a name from another by answering
//     first; a clean candidate equal to another tool's suffixed name
//     yields to it, so a server cannot squat a renamed tool's name.
//  5. Should a suffixed name be taken still (a fixed name, or a crafted
//     collision of 8 hex digits), the hash also covers a counter, counted
//     in (server, tool) order. Names never grow past N.
package toolname
