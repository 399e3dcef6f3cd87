// Runs a CommonJS thread bundle through V8's code cache. Node 20's ESM loader keeps no code cache, so every
// thread used to parse and compile its start-up graph from source (~40% of an agent worker's boot): the build
// writes each thread's graph as one .cjs bundle with a cache trained on a scripted run (scripts/train-code-cache.mjs).
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { threadId } from 'node:worker_threads';
import { Script } from 'node:vm';
import { IMPORT_HOOK } from './import-module.js';
import { trace } from './trace.js';

/** The bundle's last line names its build (a hash of the rest): a cache is used only with the bundle it came from
 *  (V8 checks a cache against the source's length only, so a rebuilt bundle must never meet an older cache). */
export const BUILD_LINE = /\n\/\/# yagent-build ([0-9a-f]{16})\n?$/;

/** The cache of a bundle build: `<bundle>.<build>.v8cache` beside it. */
export function cacheFileFor(bundle: string, build: string): string {
  return `${bundle}.${build}.v8cache`;
}

/** YAGENT_CODE_CACHE_TRAIN=<dir>: the build's training run; each thread writes what it compiled there as it ends. */
const TRAIN_DIR = process.env['YAGENT_CODE_CACHE_TRAIN'];
const HOOK = Symbol.for('yagent.code-cache.flush');

/** The wrapper Node's CJS loader uses, so `require`, `module` and line numbers behave as in any CommonJS module. */
export function wrapCommonJs(source: string): string {
  return `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
}

export interface LoadedBundle {
  exports: unknown;
  /** 'hit' (cache accepted), 'miss' (no cache for this build), 'rejected' (V8 refused it: another node or flags),
   *  'loaded' (this thread had loaded the file already: the same module). */
  cache: 'hit' | 'miss' | 'rejected' | 'loaded';
}

const trained: { file: string; build: string; script: Script }[] = [];
/** One module object per bundle file and thread, registered before it runs (chunks may require each other). */
const modules = new Map<string, { exports: unknown }>();

/**
 * Loads `file` (a CommonJS bundle) like `require` would, compiled with its code cache when there is one. Its
 * relative requires of other `.cjs` files (a bundle's chunks) load the same way; `packages` maps bare specifiers
 * to further bundles (a vendored SDK), loaded on their first `require`.
 */
export function loadBundle(file: string, packages: Readonly<Record<string, string>> = {}): LoadedBundle {
  const known = modules.get(file);
  if (known) return { exports: known.exports, cache: 'loaded' };
  const source = readFileSync(file, 'utf8');
  const build = BUILD_LINE.exec(source.slice(-64))?.[1];
  let cachedData: Buffer | undefined;
  if (build !== undefined) {
    try {
      cachedData = readFileSync(cacheFileFor(file, build));
    } catch {
      cachedData = undefined; // not trained (a plain build): compile from source
    }
  }
  const script = new Script(wrapCommonJs(source), { filename: file, ...(cachedData ? { cachedData } : {}) });
  if (TRAIN_DIR !== undefined && build !== undefined) trained.push({ file, build, script });
  const nodeRequire = createRequire(file);
  const requireFn = Object.assign((id: string): unknown => {
    const target = packages[id] ?? (/^\.\.?\//.test(id) && id.endsWith('.cjs') ? resolve(dirname(file), id) : undefined);
    return target === undefined ? nodeRequire(id) : loadBundle(target, packages).exports;
  }, nodeRequire);
  const mod = { exports: {} as unknown };
  modules.set(file, mod);
  (script.runInThisContext() as (...a: unknown[]) => void)(mod.exports, requireFn, mod, file, dirname(file));
  const cache = cachedData === undefined ? 'miss' : script.cachedDataRejected === true ? 'rejected' : 'hit';
  trace(`code cache ${cache}: ${basename(file)}`);
  return { exports: mod.exports, cache };
}

// code compiled here cannot import(): lend ours to importModule() (a real ES module's import works)
(globalThis as Record<symbol, unknown>)[IMPORT_HOOK] ??= (url: string): Promise<unknown> => import(url);

/** Training run only: writes every bundle this thread compiled, with what it compiled so far, into the training
 *  dir (the build keeps the largest per bundle). Any copy of this module reaches the loader's list. */
export function flushTrainedCaches(): void {
  const hook = (globalThis as Record<symbol, (() => void) | undefined>)[HOOK];
  hook?.();
}

if (TRAIN_DIR !== undefined && (globalThis as Record<symbol, unknown>)[HOOK] === undefined) {
  (globalThis as Record<symbol, unknown>)[HOOK] = () => {
    for (const t of trained) writeFileSync(join(TRAIN_DIR, `${basename(t.file)}.${t.build}.${process.pid}.${threadId}.v8cache`), t.script.createCachedData());
  };
}
