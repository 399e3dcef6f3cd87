// Build-time patch of the vendored SDKs' request path (scripts/vendor-packages.mjs, issue 29), beside sdk-quiet-logs.mjs.
// Two edits per SDK, neither changing what is sent, when it times out or how it aborts
// (test/llm/sdk-fast-request.test.ts compares the patched bundle with the installed SDK):
// 1. internal/headers.mjs: `buildHeaders` (3–5 merges a request: the request's, its body's, Anthropic's auth) walks
//    each source through the `iterateHeaders` generator: a generator, a result object and a destructured pair per
//    header. The patch adds `eachHeader`, the same code with each `yield [a, b]` made a call `visit(a, b)` (and
//    `yield* x` a loop calling it per pair), and runs buildHeaders' loop body as that callback (`continue` → `return`):
//    the same calls on the same Headers in the same order. `iterateHeaders` stays for its other users.
// 2. client.mjs `fetchWithTimeout`: the options handed to fetch carry `signal: controller.signal`, and Node builds an
//    AbortSignal on the first read of `controller.signal` (~4 µs in Node 20). The patch makes it a getter returning the
//    same `controller.signal`, so the signal is built when someone reads it: a fetch that reads it gets the same signal,
//    aborted by the same timer and the same caller signal; our engines' fetch (callSignalFetch) sends with the call's
//    own signal and never reads it. `controller.abort()` builds the signal then if nobody did (Node's AbortController).
// Every edited text is pinned (a hash of the block, exact counts), else the build fails: a new SDK version is looked
// at, never silently left unpatched or mis-patched.
import { createHash } from 'node:crypto';

const sha = (s) => createHash('sha256').update(s).digest('hex').slice(0, 16);

/** The block from `function* iterateHeaders` to the end of `buildHeaders`, by its hash per SDK (the text this patch
 *  was written against: openai 6.30.1, @anthropic-ai/sdk 1.14.0). */
const HEADERS_BLOCK = { openai: '93077d67553fdb27', '@anthropic-ai/sdk': '4d57468ecdad28b5' };
const BLOCK = /function\* iterateHeaders\(headers\) \{[\s\S]*?\nexport const buildHeaders = \(newHeaders\) => \{[\s\S]*?\n\};\n/;
const LOOP = /( *)for \(const \[name, value\] of iterateHeaders\(headers\)\) \{\n([\s\S]*?)\n\1\}\n/;

function fail(id, what) {
  throw new Error(`${id}: the SDK request-path patch ${what}: check scripts/sdk-fast-request.mjs against this SDK version`);
}

/** `iterateHeaders` as a function calling `visit(name, value)` where the generator yields [name, value]. */
function eachHeaderOf(generator, id) {
  let out = generator.replace('function* iterateHeaders(headers) {', 'function eachHeader(headers, visit) {');
  out = out.replace(/yield\* ([\w.]+\(\));/g, 'for (const [name, value] of $1) visit(name, value);');
  out = out.replace(/yield \[(\w+), (\w+)\];/g, 'visit($1, $2);');
  if (/\byield\b/.test(out)) fail(id, 'left a yield it does not know in iterateHeaders');
  return out;
}

function patchHeaders(code, id, sdk) {
  const block = code.match(BLOCK)?.[0];
  if (block === undefined) fail(id, 'found no iterateHeaders/buildHeaders block');
  if (sha(block) !== HEADERS_BLOCK[sdk]) fail(id, `found iterateHeaders/buildHeaders changed (hash ${sha(block)})`);
  const generator = block.slice(0, block.indexOf('\n}\n') + 3);
  const loop = block.match(LOOP);
  if (loop === null) fail(id, "found no `for (const [name, value] of iterateHeaders(headers))` in buildHeaders");
  const [whole, indent, body] = loop;
  // `continue` ends one header's turn of the loop: in the callback that is `return` (no loop nested in the body)
  if (/\b(for|while|do|break|yield|await)\b/.test(body)) fail(id, "found a loop, break, yield or await in buildHeaders' loop body");
  const callback = `${indent}eachHeader(headers, (name, value) => {\n${body.replace(/\bcontinue;/g, 'return;')}\n${indent}});\n`;
  const build = block.slice(generator.length).replace(whole, () => callback);
  return code.replace(block, () => `${generator}${eachHeaderOf(generator, id)}${build}`);
}

/** fetchWithTimeout's `const fetchOptions = {\n signal: controller.signal,` (the only such line in the file). */
const SIGNAL = /(const fetchOptions = \{\n +)signal: controller\.signal,\n/g;

function patchClient(code, id) {
  const n = (code.match(SIGNAL) ?? []).length;
  if (n !== 1 || code.split('controller.signal').length - 1 !== 1) fail(id, `expected fetchWithTimeout's one \`signal: controller.signal\`, found ${n}`);
  return code.replace(SIGNAL, '$1get signal() { return controller.signal; },\n');
}

const FILES = [
  ['openai/internal/headers.mjs', (c, id) => patchHeaders(c, id, 'openai')],
  ['@anthropic-ai/sdk/internal/headers.mjs', (c, id) => patchHeaders(c, id, '@anthropic-ai/sdk')],
  ['openai/client.mjs', patchClient],
  ['@anthropic-ai/sdk/client.mjs', patchClient],
];

/** Applies the patch of the SDK file `id` (a path), or returns null for any other file. Throws when the text differs. */
export function fastRequest(code, id) {
  const normal = id.replaceAll('\\', '/');
  const entry = FILES.find(([suffix]) => normal.endsWith(`/node_modules/${suffix}`));
  return entry === undefined ? null : entry[1](code, id);
}
