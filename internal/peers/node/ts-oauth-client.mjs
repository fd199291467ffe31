#!/usr/bin/env node
// ts-oauth-client.mjs — the official TypeScript SDK client running its
// OAuth flow against an MCP server, so Go tests can check our server's
// authorization with a real third-party client.
//
// Usage: node ts-oauth-client.mjs URL
//
// The user's step is headless: the authorization endpoint under test
// approves at once, so the client fetches the authorization URL without
// following the redirect and takes the code from its Location. It
// registers dynamically as a public client, connects (meeting the 401),
// finishes the authorization, connects again, lists the tools and calls
// whoami. Output (stdout, one line):
//   {"tools":[names...], "whoami":{...structuredContent}}
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';

const url = new URL(process.argv[2]);
const redirect = 'http://127.0.0.1:9/callback';
let info, tokens, verifier, code;
const provider = {
  get redirectUrl() { return redirect; },
  get clientMetadata() {
    return {
      client_name: 'ts-oauth-client',
      redirect_uris: [redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  },
  clientInformation() { return info; },
  saveClientInformation(i) { info = i; },
  tokens() { return tokens; },
  saveTokens(t) { tokens = t; },
  async redirectToAuthorization(authURL) {
    const r = await fetch(authURL, { redirect: 'manual' });
    const loc = new URL(r.headers.get('location'));
    if (loc.searchParams.get('error')) throw new Error('authorization refused: ' + loc.searchParams.get('error'));
    code = loc.searchParams.get('code');
  },
  saveCodeVerifier(v) { verifier = v; },
  codeVerifier() { return verifier; },
};

async function connect() {
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  const client = new Client({ name: 'ts-oauth-client', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

let client;
try {
  client = await connect();
} catch (e) {
  if (!(e instanceof UnauthorizedError)) throw e;
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
  await transport.finishAuth(code);
  client = await connect();
}
const tools = await client.listTools();
const res = await client.callTool({ name: 'whoami', arguments: {} });
console.log(JSON.stringify({ tools: tools.tools.map(t => t.name), whoami: res.structuredContent }));
await client.close();
