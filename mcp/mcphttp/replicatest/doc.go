// Package replicatest checks that replicas of one MCP server behind
// different URLs serve clients as one server: the scenarios of
// docs/DEPLOY.md, run by mcphttp's tests on in-memory stores and by
// redisstore's on Redis, in one process and as separate processes behind
// a proxy. ListenAcross needs a resource that the update names;
// ResumeElsewhere a tool that reports progress (Count is Server's).
package replicatest
