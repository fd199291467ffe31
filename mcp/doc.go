// Package mcp is the Model Context Protocol itself: the types of every
// revision from 2024-11-05 to 2026-07-28, and the Server, which serves
// typed tools, resources, prompts, completion and subscriptions to legacy
// sessions and stateless requests alike, each session on a
// transport.Stream (Server.Run for stdio, Server.Connect for anything
// else).
//
// Transports live elsewhere: stdio and in-memory pipes in package
// transport, Streamable HTTP in package mcp/mcphttp, which this package
// does not import so that a stdio server does not link net/http.
// Server.CheckVersion and Server.Logger are what such transports need
// beyond Connect.
package mcp
