#!/usr/bin/env node
// ps-parse.mjs — syntax-check a PowerShell script without PowerShell.
//
// Usage: node ps-parse.mjs < script.ps1
//
// Reads the script from stdin and parses it with tree-sitter's PowerShell
// grammar (tree-sitter-powershell's shipped .wasm, run by web-tree-sitter, so
// no native addon or compiler is needed). Exit status:
//   0  the script parsed with no ERROR or MISSING nodes
//   1  syntax errors; one line per error on stderr: "line:col: ERROR near '...'"
//      or "line:col: MISSING <token>" (1-based line and column)
//   2  the parser could not be loaded or stdin could not be read
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import v8 from 'node:v8';

// V8 otherwise spends ~7 s of CPU optimizing the grammar's 1 MB WebAssembly
// module in the background (and waits for that at exit) to save a few ms on
// one parse. The baseline compiler alone is plenty: the whole run takes ~0.2 s.
// This must run before web-tree-sitter compiles anything.
v8.setFlagsFromString('--liftoff-only');
const { Parser, Language } = await import('web-tree-sitter');

const require = createRequire(import.meta.url);

// The grammar rejects a script that holds nothing but whitespace and comments
// (PowerShell accepts it), reporting one ERROR node spanning the input. Such
// ERROR nodes are ignored; an ERROR node holding any real token is not.
const BLANK = /^(?:\s|#[^\n]*|<#[\s\S]*?#>)*$/;

async function main() {
  await Parser.init();
  const wasm = require.resolve('tree-sitter-powershell/tree-sitter-powershell.wasm');
  const language = await Language.load(readFileSync(wasm));
  const parser = new Parser();
  parser.setLanguage(language);

  const source = readFileSync(0, 'utf8');
  const tree = parser.parse(source);
  if (!tree) throw new Error('parser returned no tree');

  // Walk only the subtrees that contain errors.
  const errors = [];
  const visit = (node) => {
    if (node.isMissing) {
      errors.push({ pos: node.startPosition, text: `MISSING ${node.type}` });
      return;
    }
    if (node.isError && !BLANK.test(source.slice(node.startIndex, node.endIndex))) {
      const snippet = source.slice(node.startIndex, Math.min(node.endIndex, node.startIndex + 40));
      errors.push({ pos: node.startPosition, text: `ERROR near ${JSON.stringify(snippet)}` });
    }
    for (const child of node.children) {
      if (child && child.hasError) visit(child);
    }
  };
  if (tree.rootNode.hasError) visit(tree.rootNode);

  for (const e of errors) {
    process.stderr.write(`${e.pos.row + 1}:${e.pos.column + 1}: ${e.text}\n`);
  }
  return errors.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`ps-parse: ${err?.stack ?? err}\n`);
    process.exit(2);
  },
);
