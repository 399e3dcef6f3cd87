// Post-build step of `npm run build`: each start-up thread's whole graph as ONE CommonJS bundle beside its entry,
// run through V8's code cache by src/runtime/code-cache.ts (Node 20 keeps no code cache for ES modules, and its ESM
// loader pays per file: resolve, a read on the shared libuv pool, compile). The threads:
// - the CLI: dist/bin/main.cjs (what bin/yagent.js runs);
// - every ThreadBundle the leaf modules declare (AGENT_THREAD, STORE_THREAD): `entry` → `bundle`, e.g. the worker
//   bootstrap with the agent actor built in. A bundle holds its own copy of src/runtime, so its worker runs only
//   the modules it carries (spare-boot.ts); the generic worker (actor-worker.js) imports dist/ as before.
// Packages are inlined, except node builtins, CommonJS packages loaded only on some paths (blessed, piscina, the MCP
// SDK, js-tiktoken, bullmq and ioredis (queue commands only), web-tree-sitter: run_bash's parser, loaded at the first check) and a thread's `requires` (the SDKs: bundles of their own, vendor-packages.mjs).
// Dynamic imports become `require` (no import() may stay: code compiled by node:vm cannot import() without a flag).
// The last line of each bundle names its build (a hash of its text): a code cache is used only with its own build.
// Compiled files are never rewritten: tests and tools that import dist/ modules see the tsc output.
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeCjs, writeStampedCjs } from './rolldown-write.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const need = (rel) => {
  const f = join(dist, rel);
  if (!existsSync(f)) throw new Error(`${rel} is missing: run tsc first`);
  return f;
};

/** Packages never inlined: CommonJS packages only some commands load (their require resolves from node_modules). */
const LEFT_OUT = [/^blessed$/, /^piscina$/, /^@modelcontextprotocol\/sdk(\/|$)/, /^js-tiktoken(\/|$)/, /^web-tree-sitter$/, /^bullmq$/, /^ioredis$/];

const { AGENT_THREAD } = await import(pathToFileURL(need('src/actors/agents/agent-module.js')).href);
const { STORE_THREAD } = await import(pathToFileURL(need('src/store/store-module.js')).href);

const threads = [AGENT_THREAD, STORE_THREAD];

// outputs of older builds (ESM bundles, chunks) never survive; code caches are train-code-cache.mjs's to sweep and remake
rmSync(join(dist, 'bin', 'chunks'), { recursive: true, force: true });
for (const old of ['bin/main.bundle.js', 'src/actors/agents/agent-actor.bundle.js', 'src/store/store-actor.bundle.js']) rmSync(join(dist, old), { force: true });

for (const t of threads) {
  const external = [...LEFT_OUT, ...Object.keys(t.requires ?? {}).map((name) => new RegExp(`^${name.replace(/[/.]/g, '\\$&')}$`))];
  await writeStampedCjs({ input: need(t.entry), external }, join(dist, t.bundle));
}

// the thread bundles' worker entry as CommonJS too: a worker whose entry is an ES module pays for Node's ESM loader
// before it runs anything (~15 ms of CPU per worker); this one never starts it
await writeCjs({ input: need('src/runtime/thread-worker.js') }, join(dist, 'src', 'runtime', 'thread-worker.cjs'));

// the main thread sends a new task's Director first request with the engine's SDK (bin/host/presend.ts): the same
// vendored, code-cached SDK bundles the agent's thread requires (bin/yagent.js maps them), never an inlined copy
const SDK_REQUIRES = Object.keys(AGENT_THREAD.requires ?? {}).map((name) => new RegExp(`^${name.replace(/[/.]/g, '\\$&')}$`));

// the CLI keeps its sub-commands lazy: chunks (each code-cached) that load when a command needs them, so `-p`
// never reads the TUI, blessed or the MCP SDK; early-boot.cjs (what bin/yagent.js runs first) shares its chunks,
// so the launcher and the CLI hold one prestart registry
await writeStampedCjs(
  { input: { main: need('bin/main.js'), 'early-boot': need('bin/host/early-boot.js') }, external: [...LEFT_OUT, ...SDK_REQUIRES] },
  { dir: join(dist, 'bin'), output: { entryFileNames: '[name].cjs', chunkFileNames: 'chunks/[name]-[hash].cjs' } },
);
