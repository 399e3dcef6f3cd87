#!/usr/bin/env node
// Thin launcher: the CLI is compiled TypeScript under dist/ (npm run build), run from its code-cached CommonJS
// bundle (dist/bin/main.cjs, src/runtime/code-cache.ts); a plain `tsc` build runs the compiled module instead.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
const dist = new URL('../dist/', import.meta.url);
const file = (rel) => fileURLToPath(new URL(rel, dist));
if (!existsSync(file('bin/main.js'))) {
  process.stderr.write('yagent: not built yet.\n  where: dist/bin/main.js is missing\n  fix:   run `npm run build` (or `npm ci` then `npm run build`)\n');
  process.exit(2);
}
const cache = await import(new URL('src/runtime/code-cache.js', dist).href);
const bundled = existsSync(file('bin/main.cjs'));
// a command that runs agents here starts their workers first, while the CLI loads (bin/host/early-boot.ts)
// the SDKs (a new task's Director's first request is sent from this thread: bin/host/presend.ts) are the agent
// thread's vendored bundles (AGENT_THREAD.requires), loaded on first use
const sdks = { openai: file('node_modules/openai/index.cjs'), '@anthropic-ai/sdk': file('node_modules/@anthropic-ai/sdk/index.cjs') };
const early = bundled ? cache.loadBundle(file('bin/early-boot.cjs'), sdks).exports : await import(new URL('bin/host/early-boot.js', dist).href);
await early.bootEarly(process.argv.slice(2));
const cli = bundled ? cache.loadBundle(file('bin/main.cjs'), sdks).exports : await import(new URL('bin/main.js', dist).href);
const code = await cli.main(process.argv.slice(2));
cache.flushTrainedCaches();
// exit once stdout and stderr are flushed (a pipe's writes are asynchronous: an error's last lines were lost), and
// without waiting for anything else: a straggling handle must not keep a finished client alive
const flushed = (stream) => new Promise((resolve) => stream.write('', resolve));
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit(code);
