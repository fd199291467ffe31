#!/usr/bin/env node
// ts-server.mjs — a small MCP server written with the official TypeScript SDK
// (McpServer) over stdio, so Go tests can check our client against a real
// third-party server.
//
// Usage: node ts-server.mjs        (speaks MCP on stdin/stdout; logs to stderr)
//
// Tools:
//   echo {text: string}            -> text content: text
//   add  {a: number, b: number}    -> structuredContent {sum} (declares an outputSchema),
//                                     plus the same JSON as text content
//   fail {}                        -> a tool result with isError: true
//   slow {ms: number}              -> waits ms (default 500), sending 5 progress
//                                     notifications when the caller gave a progressToken,
//                                     then text content "done"
// Invalid arguments are rejected by the SDK's own validation.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import * as z from 'zod';

const server = new McpServer({ name: 'winbridge-ts-server', version: '0.0.0' });

server.registerTool(
  'echo',
  { description: 'Echo the text back.', inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: 'text', text }] }),
);

server.registerTool(
  'add',
  {
    description: 'Add two numbers; the sum is returned as structured content.',
    inputSchema: { a: z.number(), b: z.number() },
    outputSchema: { sum: z.number() },
  },
  async ({ a, b }) => {
    const structuredContent = { sum: a + b };
    return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
  },
);

server.registerTool(
  'fail',
  { description: 'Always fails with a tool error (isError: true).', inputSchema: {} },
  async () => ({ content: [{ type: 'text', text: 'this tool always fails' }], isError: true }),
);

server.registerTool(
  'slow',
  {
    description: 'Wait ms milliseconds, reporting progress in 5 steps.',
    inputSchema: { ms: z.number().int().min(0).max(60000).optional() },
  },
  async ({ ms = 500 }, extra) => {
    const token = extra._meta?.progressToken;
    const steps = 5;
    for (let i = 1; i <= steps; i++) {
      await new Promise((r) => setTimeout(r, ms / steps));
      if (extra.signal.aborted) throw new Error('cancelled');
      if (token !== undefined) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: i, total: steps, message: `step ${i}/${steps}` },
        });
      }
    }
    return { content: [{ type: 'text', text: 'done' }] };
  },
);

await server.connect(new StdioServerTransport());
process.stderr.write('ts-server: ready on stdio\n');
