// Package gateway is the tool facade: one small, safe tool surface over
// many MCP servers. A Gateway composes upstream servers (child processes
// from an "mcpServers" configuration, and *mcp.Server values in this
// process) and serves their tools, resources, resource templates and
// prompts downstream through one *mcp.Server, intercepting tools/list and
// tools/call:
//
//   - Names pass ^[a-zA-Z0-9_-]{1,N}$ (N = 64 by default), never collide,
//     are the same after a restart and map back exactly
//     (internal/toolname).
//   - Input schemas are cleaned for the profile's target provider
//     (anthropic, openai, openai-strict, gemini, none); arguments are still
//     validated against the upstream's original schema.
//   - Descriptions carry risk prefixes derived from the annotations.
//   - Every tools/call runs the pipeline: alias, policy, argument bytes,
//     strict validation (no coercion), scope binding of path arguments,
//     approval through elicitation (itself bounded per caller, so that a
//     model cannot wear the user down with questions), budgets, the
//     upstream call, output caps and the output schema, audit. A refusal is a tool error whose
//     structuredContent carries a stable Code.
//
// The facade is a deterministic layer and a guardrail, not a sandbox: it
// cannot see what an upstream does with arguments it let through.
// docs/FACADE.md is the guide and the policy reference.
package gateway
