// Post-build step of `npm run build`: the start-up entry points as bundles beside the compiled files.
// Node's ESM loader pays per file (resolve, read on the shared libuv pool, compile), and a thread that loads
// ~120 files at start waits on that more than it computes (bench: `npm run bench -- cli`, src/runtime/AGENTS.md).
// - dist/bin/main.bundle.js (+ dist/bin/chunks/): the CLI thread; sub-commands stay lazy chunks.
// - <actor>.bundle.js beside each actor module: an actor worker's own graph in one file. src/runtime/** stays
//   external (one copy per thread: the worker bootstrap already loaded it, and process-group tables, pause
//   gates and the protocol must not exist twice), and so do packages (zod is one vendored file already).
// Compiled files are never rewritten: tests and tools that import dist/ modules see the tsc output.
import { existsSync, rmSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeBundle } from './rolldown-write.mjs';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const runtimeDir = join(dist, 'src', 'runtime') + sep;
// config/ is runtime code no runtime module imports (only actors and clients do): stateless parsing, so an actor
// bundle inlines it (~20 files fewer for a worker to load) and the thread still holds one copy
const configDir = join(runtimeDir, 'config') + sep;
const isPackage = (source) => !source.startsWith('.') && !source.startsWith('/');

/** Actor modules (relative to dist/) bundled to `<name>.bundle.js` in their own directory. */
const ACTOR_ENTRIES = ['src/actors/agents/agent-actor.js', 'src/store/store-actor.js'];

const actorExternals = {
  name: 'actor-externals',
  resolveId(source, importer) {
    if (!importer) return null;
    if (isPackage(source)) return { id: source, external: true };
    const abs = resolve(dirname(importer), source);
    return abs.startsWith(runtimeDir) && !abs.startsWith(configDir) ? { id: abs, external: 'relative' } : null;
  },
};

const packagesExternal = {
  name: 'packages-external',
  resolveId: (source, importer) => (importer && isPackage(source) ? { id: source, external: true } : null),
};

const write = (input, plugin, output) => writeBundle({ input, plugins: [plugin] }, output);

for (const entry of ACTOR_ENTRIES) {
  const file = join(dist, entry);
  if (!existsSync(file)) throw new Error(`${entry} is missing: run tsc first`);
  const name = entry.slice(entry.lastIndexOf('/') + 1, -'.js'.length);
  // written into the entry's own directory, so the external runtime paths stay the entry's relative ones
  await write({ [name]: file }, actorExternals, { dir: dirname(file), entryFileNames: '[name].bundle.js', codeSplitting: false });
}

rmSync(join(dist, 'bin', 'chunks'), { recursive: true, force: true }); // no chunk of an older build survives
await write({ 'main.bundle': join(dist, 'bin', 'main.js') }, packagesExternal, { dir: join(dist, 'bin'), entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js' });
