// Import specifiers → workspace files, from the parse's specifiers alone: relative TS/JS specifiers with the
// extensions the compiler tries, Python absolute (from the root or src/) and relative modules, Go packages under the
// go.mod module path. Shared by the blueprint's edges and the call resolution of codeseek.
import { readFileSync } from 'node:fs';
import { join, posix } from 'node:path';

export interface SourceFile {
  path: string;
  lang: string;
  imports: string[];
}

/** The indexed paths: a Set, or the index's own map keyed by path (no copy of 5,000 paths per refresh). */
export interface PathSet {
  has(path: string): boolean;
  keys(): Iterable<string>;
}

const TS_EXT = ['.ts', '.tsx', '.d.ts', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts'];

/** Resolves one import of `from` to an indexed file (null: a package, the standard library, or not indexed). */
export function resolveImport(from: SourceFile, spec: string, files: PathSet, goModule: string | null): string | null {
  if (from.lang === 'python') return resolvePython(from.path, spec, files);
  if (from.lang === 'go') {
    if (goModule === null || !(spec === goModule || spec.startsWith(`${goModule}/`))) return null;
    const dir = spec === goModule ? '' : spec.slice(goModule.length + 1);
    const prefix = dir === '' ? '' : `${dir}/`;
    for (const f of files.keys()) if (f.startsWith(prefix) && !f.slice(prefix.length).includes('/') && f.endsWith('.go')) return f;
    return null;
  }
  if (!spec.startsWith('./') && !spec.startsWith('../')) return null;
  const base = posix.normalize(posix.join(posix.dirname(from.path), spec));
  const stem = base.replace(/\.(?:[cm]?js|jsx)$/, '');
  const candidates = [base, ...TS_EXT.map((e) => stem + e), ...TS_EXT.map((e) => `${base}/index${e}`)];
  return candidates.find((c) => files.has(c)) ?? null;
}

function resolvePython(path: string, spec: string, files: PathSet): string | null {
  const dots = /^\.*/.exec(spec)?.[0].length ?? 0;
  const rest = spec.slice(dots).split('.').filter((s) => s !== '');
  let bases: string[];
  if (dots > 0) {
    let dir = posix.dirname(path);
    for (let i = 1; i < dots; i++) dir = posix.dirname(dir);
    bases = [dir === '.' ? '' : dir];
  } else bases = ['', 'src'];
  for (const b of bases) {
    const p = [b, ...rest].filter((s) => s !== '').join('/');
    for (const c of [`${p}.py`, `${p}/__init__.py`]) if (files.has(c)) return c;
  }
  return null;
}

export function goModuleOf(root: string): string | null {
  try {
    return /^module\s+(\S+)/m.exec(readFileSync(join(root, 'go.mod'), 'utf8'))?.[1] ?? null;
  } catch {
    return null; // no go.mod: Go imports are all external
  }
}

