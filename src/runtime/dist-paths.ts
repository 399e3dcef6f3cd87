// Where compiled code lives: walk up from this module to the package root, then into dist/.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cachedRoot: string | undefined;

/** The yagent package root (the directory whose package.json is named "yagent"). */
export function packageRoot(): string {
  if (cachedRoot) return cachedRoot;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pj = join(dir, 'package.json');
    if (existsSync(pj)) {
      try {
        if ((JSON.parse(readFileSync(pj, 'utf8')) as { name?: unknown }).name === 'yagent') return (cachedRoot = dir);
      } catch {
        // An unreadable package.json is not ours; keep walking.
      }
    }
    const up = dirname(dir);
    if (up === dir) throw new Error(`yagent package root not found above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}

export function distRoot(): string {
  return join(packageRoot(), 'dist');
}

/** Absolute path of a compiled file under dist/; a clear error when the build is missing. */
export function distFile(rel: string): string {
  const p = join(distRoot(), rel);
  if (!existsSync(p)) throw new Error(`compiled file missing: ${p} — run \`npm run build\` first (workers load dist/)`);
  return p;
}

export const ACTOR_WORKER = 'src/runtime/actor-worker.js';
/** The worker entry that runs a thread bundle (spare-boot.ts): thread-worker.ts as CommonJS (scripts/bundle-entries.mjs). */
export const THREAD_WORKER = 'src/runtime/thread-worker.cjs';
