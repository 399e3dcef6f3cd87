// Post-build step of `npm run build`: packages every thread loads at start, each as ONE module under
// dist/node_modules/<name>, where every compiled file's bare import resolves first (Node looks in the nearest
// node_modules) instead of the package's hundreds of files. Node's ESM loader pays per file (resolve, a read on
// the shared libuv pool, compile): zod ~95 files -> 1 (every thread), openai 70-140 ms -> 11-18 ms and
// @anthropic-ai/sdk 200-350 ms -> 70-150 ms to import (the Director's first request waits for its SDK);
// smol-toml, tinyglobby (with fdir and picomatch, CommonJS) and diff: ~40 files -> 4 in an agent worker.
// Only ESM packages whose named exports survive bundling (fastest-levenshtein is CommonJS: not vendored).
// Compiled files are not rewritten, so a plain `tsc` build still runs (on the installed packages); a bundle is
// rebuilt whenever its package's version differs. Only the root entry is vendored: src and bin import nothing
// else at run time (type-only deep imports are erased by tsc; a deep value import would fail loudly here).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeBundle, writeStampedCjs } from './rolldown-write.mjs';
import { quietLogs } from './sdk-quiet-logs.mjs';
import { fastRequest } from './sdk-fast-request.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const VENDORED = ['zod', 'openai', '@anthropic-ai/sdk', 'smol-toml', 'tinyglobby', 'diff'];
/** Also written as one code-cached CommonJS file (index.cjs): what the agent's thread bundle requires (AGENT_THREAD). */
const CJS_TOO = new Set(['openai', '@anthropic-ai/sdk']);
// Bumped when what a vendored file contains changes for the same package version (so old builds are redone).
const RECIPE = 9;

/** The SDKs' free `Headers`, `FormData` and `Response` name our shims (src/actors/llm/transport/web-shims.ts): Node
 *  defines the globals by loading undici (~45 ms of CPU per thread), which our node:http transport never needs. */
const SHIMS = join(root, 'dist', 'src', 'actors', 'llm', 'transport', 'web-shims.js');
const NO_UNDICI = { inject: Object.fromEntries(['Headers', 'FormData', 'Response'].map((g) => [g, [SHIMS, g]])) };
const SDKS = new Set(['openai', '@anthropic-ai/sdk']);

/** zod's `locales` namespace (~240 KB of its 620 KB: every language's error messages) is re-exported by its
 *  root entry; nothing here reads it, and every thread would parse it. English stays: zod configures it itself. */
const noZodLocales = {
  name: 'no-zod-locales',
  resolveId: (source, importer) =>
    source === '../locales/index.js' && importer?.includes(`${join('node_modules', 'zod', 'v4')}`) ? { id: '\0zod-locales' } : null,
  load: (id) => (id === '\0zod-locales' ? 'export {};' : null),
};

/** Our zod is jitless from its first line: zod decides per schema, when the schema is built, whether to compile a
 *  `new Function` fast path on its first parse, so a `z.config()` after any module built one is too late for it.
 *  Our threads parse a few hundred messages each: the generated code costs more than it saves (~3 MB of peak RSS). */
const jitlessZod = {
  name: 'jitless-zod',
  resolveId: (source, importer) => (source === 'zod' && importer === undefined ? { id: '\0zod-entry' } : null),
  load: (id) => (id === '\0zod-entry' ? "import { config } from 'zod';\nconfig({ jitless: true });\nexport * from 'zod';\nexport { default } from 'zod';\n" : null),
};

/** A rolldown plugin applying an SDK patch (`patch(code, id)`: the patched text, or null for a file it does not edit);
 *  `seen` lists the files it patched (the checks below: every file each patch names was in the bundle). */
function sdkPatch(name, patch, seen) {
  return {
    name,
    transform(code, id) {
      const out = patch(code, id);
      if (out !== null) seen.add(id);
      return out;
    },
  };
}

/** fdir (inside tinyglobby) requires picomatch at load, in a try, for its own glob() builder, which tinyglobby never
 *  calls (it matches with its own picomatch, inlined): four files through the CommonJS loader in every thread that
 *  globs. The build fails if fdir's code changes shape, so a new version is looked at, not silently mis-patched. */
const fdirNoOptionalPicomatch = {
  name: 'fdir-no-optional-picomatch',
  transform(code, id) {
    if (!/[\\/]fdir[\\/]dist[\\/]index\.mjs$/.test(id)) return null;
    const out = code.replace(/__require\.resolve\("picomatch"\);\s*pm = __require\("picomatch"\);/, '');
    if (out === code) throw new Error(`${id}: fdir's optional picomatch require not found: check the vendoring of tinyglobby`);
    return out;
  },
};

for (const name of VENDORED) {
  const { version } = JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8'));
  const target = join(root, 'dist', 'node_modules', name);
  const manifest = join(target, 'package.json');
  const old = existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')) : {};
  // the SDK bundles carry a copy of the shims: a changed shim rebuilds them as a new package version would
  const shims = SDKS.has(name) ? createHash('sha256').update(readFileSync(SHIMS)).digest('hex').slice(0, 16) : undefined;
  if (old.version === version && old.vendorRecipe === RECIPE && old.shims === shims && existsSync(join(target, 'index.js'))) continue;
  mkdirSync(target, { recursive: true });
  // the package's own `exports` pick its ESM entry; its dynamic imports are inlined (one file, nothing else to find)
  // the SDKs build no log text their log level would not print (sdk-quiet-logs.mjs) and merge headers without
  // generators, their own AbortSignal built only when read (sdk-fast-request.mjs): each must be patched
  const patched = new Set();
  const fast = new Set();
  const plugins = name === 'zod' ? [jitlessZod, noZodLocales] : name === 'tinyglobby' ? [fdirNoOptionalPicomatch] : SDKS.has(name) ? [sdkPatch('sdk-quiet-logs', quietLogs, patched), sdkPatch('sdk-fast-request', fastRequest, fast)] : [];
  const input = { input: name, cwd: root, plugins, ...(SDKS.has(name) ? { transform: NO_UNDICI } : {}) };
  await writeBundle(input, { file: join(target, 'index.js'), codeSplitting: false });
  if (CJS_TOO.has(name)) await writeStampedCjs(input, join(target, 'index.cjs'));
  if (SDKS.has(name) && patched.size !== 1) throw new Error(`${name}: its client.mjs was not patched (sdk-quiet-logs.mjs): ${[...patched].join(', ') || 'not in the bundle'}`);
  if (SDKS.has(name) && fast.size !== 2) throw new Error(`${name}: its client.mjs and internal/headers.mjs were not both patched (sdk-fast-request.mjs): ${[...fast].join(', ') || 'not in the bundle'}`);
  writeFileSync(manifest, `${JSON.stringify({ name, version, vendorRecipe: RECIPE, shims, private: true, type: 'module', exports: { '.': './index.js' } }, null, 2)}\n`);
}
