#!/usr/bin/env node
// ts-client.mjs — drive an MCP server with the official TypeScript SDK client
// and print what happened as one JSON document, so Go tests can check our
// servers against a real third-party client.
//
// Usage:
//   node ts-client.mjs [--protocol VERSION] [--timeout MS] [--call NAME=JSONARGS]... -- COMMAND ARGS...
//   node ts-client.mjs [--protocol VERSION] [--timeout MS] [--call NAME=JSONARGS]... --url URL
//
// Stdio (default): spawns COMMAND ARGS with StdioClientTransport; the child
// inherits this process's environment, and its stderr goes to our stderr.
// --url URL: connects with StreamableHTTPClientTransport instead.
//
// It initializes, lists every page of tools, then performs each --call in
// order (JSONARGS defaults to {}), collecting progress notifications. Output
// (stdout, one line):
//   {"protocolVersion":..., "serverInfo":..., "capabilities":...,
//    "tools":[names...],
//    "calls":[{"name":..., "result":{...} | "error":{"code":..,"message":..,"data"?:..},
//              "progress":[{"progress":..,"total":..,"message":..}...]}]}
// A failing call is recorded in "calls" and does not change the exit status.
// Progress: the call is made with an SDK progress handler (so the SDK sends a
// progressToken), but the notifications listed are the ones read off the
// wire for that token. The SDK 1.x client dispatches notifications a
// microtask later than responses, so it drops a progress notification that
// arrives in the same read as the result; the wire view does not.
// Exit 1 (message on stderr) if the connection or the tool listing fails;
// exit 2 on bad usage.
//
// --protocol VERSION: the SDK (1.x) has no option for this; it always offers
// its LATEST_PROTOCOL_VERSION. This script rewrites the protocolVersion of the
// outgoing initialize request and, if VERSION is unknown to the SDK, adds it
// to the SDK's SUPPORTED_PROTOCOL_VERSIONS so the client accepts a server that
// answers with it. The SDK still speaks its own message shapes after that.
// --timeout MS: per-request timeout (default 60000), reset by progress.
// --sample TEXT: declare the sampling capability and answer every
// sampling/createMessage with TEXT (model "ts-client").
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';

function usage(msg) {
  process.stderr.write(
    `ts-client: ${msg}\nusage: node ts-client.mjs [--protocol V] [--timeout MS] [--sample TEXT] [--call NAME=JSON]... (--url URL | -- COMMAND ARGS...)\n`,
  );
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { protocol: undefined, url: undefined, timeout: 60000, sample: undefined, calls: [], command: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : usage(`${a} needs a value`));
    if (a === '--') {
      opts.command = argv.slice(i + 1);
      break;
    } else if (a === '--protocol') opts.protocol = value();
    else if (a === '--url') opts.url = value();
    else if (a === '--timeout') opts.timeout = Number(value());
    else if (a === '--sample') opts.sample = value();
    else if (a === '--call') {
      const spec = value();
      const eq = spec.indexOf('=');
      const name = eq < 0 ? spec : spec.slice(0, eq);
      let args = {};
      if (eq >= 0 && spec.slice(eq + 1) !== '') {
        try {
          args = JSON.parse(spec.slice(eq + 1));
        } catch (e) {
          usage(`--call ${name}: bad JSON: ${e.message}`);
        }
      }
      opts.calls.push({ name, args });
    } else usage(`unknown argument ${a}`);
  }
  if (!opts.url && opts.command.length === 0) usage('need --url URL or -- COMMAND');
  if (opts.url && opts.command.length > 0) usage('--url and COMMAND are exclusive');
  if (!Number.isFinite(opts.timeout) || opts.timeout <= 0) usage('--timeout must be a positive number');
  return opts;
}

// Wraps a transport to (a) rewrite the initialize request's protocolVersion,
// (b) record the protocolVersion the server answered with, which the SDK
// client does not expose, and (c) record the progress notifications for the
// tools/call in flight, in the order they arrive.
class RecordingTransport {
  constructor(inner, protocol) {
    this.inner = inner;
    this.protocol = protocol;
    this.initId = undefined;
    this.negotiated = undefined;
    this.progressToken = undefined; // token of the tools/call in flight
    this.progress = []; // its notifications/progress params, in wire order
    inner.onclose = () => this.onclose?.();
    inner.onerror = (e) => this.onerror?.(e);
    inner.onmessage = (msg, extra) => {
      if (msg && this.initId !== undefined && msg.id === this.initId && msg.result) {
        this.negotiated = msg.result.protocolVersion;
      }
      if (msg?.method === 'notifications/progress' && this.progressToken !== undefined &&
          msg.params?.progressToken === this.progressToken) {
        const { progress, total, message } = msg.params;
        this.progress.push({ progress, total, message });
      }
      this.onmessage?.(msg, extra);
    };
  }
  get sessionId() {
    return this.inner.sessionId;
  }
  setProtocolVersion(v) {
    this.inner.setProtocolVersion?.(v);
  }
  start() {
    return this.inner.start();
  }
  close() {
    return this.inner.close();
  }
  send(msg, options) {
    if (msg && msg.method === 'initialize') {
      this.initId = msg.id;
      if (this.protocol) msg = { ...msg, params: { ...msg.params, protocolVersion: this.protocol } };
    }
    if (msg && msg.method === 'tools/call') {
      this.progressToken = msg.params?._meta?.progressToken;
      this.progress = [];
    }
    return this.inner.send(msg, options);
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.protocol && !SUPPORTED_PROTOCOL_VERSIONS.includes(opts.protocol)) {
    SUPPORTED_PROTOCOL_VERSIONS.unshift(opts.protocol);
  }

  const inner = opts.url
    ? new StreamableHTTPClientTransport(new URL(opts.url))
    : new StdioClientTransport({
        command: opts.command[0],
        args: opts.command.slice(1),
        env: { ...process.env },
        stderr: 'inherit',
      });
  const transport = new RecordingTransport(inner, opts.protocol);
  const client = new Client(
    { name: 'winbridge-ts-client', version: '0.0.0' },
    { capabilities: opts.sample === undefined ? {} : { sampling: {} } },
  );
  if (opts.sample !== undefined) {
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      role: 'assistant',
      model: 'ts-client',
      content: { type: 'text', text: opts.sample },
    }));
  }

  try {
    await client.connect(transport, { timeout: opts.timeout });
  } catch (e) {
    process.stderr.write(`ts-client: connect failed: ${e?.message ?? e}\n`);
    process.exit(1);
  }

  const out = {
    protocolVersion: transport.negotiated,
    serverInfo: client.getServerVersion(),
    capabilities: client.getServerCapabilities(),
    tools: [],
    calls: [],
  };

  try {
    if (out.capabilities?.tools) {
      let cursor;
      do {
        const page = await client.listTools(cursor ? { cursor } : {}, { timeout: opts.timeout });
        out.tools.push(...page.tools.map((t) => t.name));
        cursor = page.nextCursor;
      } while (cursor);
    }
  } catch (e) {
    process.stderr.write(`ts-client: tools/list failed: ${e?.message ?? e}\n`);
    await client.close().catch(() => {});
    process.exit(1);
  }

  for (const { name, args } of opts.calls) {
    const call = { name };
    try {
      call.result = await client.callTool({ name, arguments: args }, undefined, {
        timeout: opts.timeout,
        resetTimeoutOnProgress: true,
        onprogress: () => {}, // makes the SDK send a progressToken; see RecordingTransport
      });
    } catch (e) {
      call.error = { code: typeof e?.code === 'number' ? e.code : null, message: String(e?.message ?? e) };
      if (e?.data !== undefined) call.error.data = e.data;
    }
    call.progress = transport.progress;
    transport.progressToken = undefined;
    transport.progress = [];
    out.calls.push(call);
  }

  process.stdout.write(JSON.stringify(out) + '\n');
  await client.close().catch(() => {});
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`ts-client: ${e?.stack ?? e}\n`);
    process.exit(1);
  },
);
