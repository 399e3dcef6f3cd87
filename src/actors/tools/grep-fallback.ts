// The built-in grep used when ripgrep is absent: a slower walk with JS regular expressions.
import { lstat, readdir, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { READ_HARD_LIMIT_BYTES } from './limits.js';

const SKIP_DIRS = new Set(['.git', 'node_modules']);

export interface GrepQuery {
  pattern: string;
  ignoreCase: boolean;
  /** Basename glob such as "*.ts"; undefined = every file. */
  include?: string | undefined;
  maxResults: number;
}

function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

/** `path` is skipped when this says so (a denied zone or a credentials file: see boundary.ts). */
export type SkipPath = (path: string) => boolean;

/** Lines `path:line:text` relative to `base`; stops at maxResults. Symlinks below `root` are not followed
 *  (like ripgrep), so `skip` sees every path the walk reads. */
export async function builtinGrep(base: string, root: string, q: GrepQuery, signal: AbortSignal, skip: SkipPath = () => false): Promise<string[]> {
  const re = new RegExp(q.pattern, q.ignoreCase ? 'i' : '');
  const include = q.include ? globToRegExp(q.include.replace(/^\*\*\//, '')) : null;
  const out: string[] = [];
  const visit = async (path: string): Promise<void> => {
    if (out.length >= q.maxResults) return;
    signal.throwIfAborted();
    if (skip(path)) return;
    const st = await (path === root ? stat(path) : lstat(path)).catch(() => null); // gone or unreadable: not searched
    if (!st) return;
    if (st.isDirectory()) {
      const names = (await readdir(path).catch(() => [] as string[])).sort();
      for (const n of names) if (!SKIP_DIRS.has(n)) await visit(join(path, n));
      return;
    }
    if (!st.isFile() || st.size > READ_HARD_LIMIT_BYTES) return;
    if (include && !include.test(path.split('/').pop() ?? '')) return;
    const buf = await readFile(path);
    if (buf.subarray(0, 8192).includes(0)) return;
    const lines = buf.toString('utf8').split('\n');
    for (let i = 0; i < lines.length && out.length < q.maxResults; i++) {
      if (re.test(lines[i] ?? '')) out.push(`${relative(base, path) || path}:${i + 1}:${lines[i]}`);
    }
  };
  await visit(root);
  return out;
}
