// The files an index covers: what git lists (tracked + untracked, .gitignore applied), or, outside a repository, a
// walk that reads every .gitignore on the way. Only files with a grammar; never dependencies or build output.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { runSafeGit } from '../../runtime/safe-git.js';
import { NEVER_INDEXED as NEVER, hasIndexedExtension } from './indexed-names.js';

function indexable(path: string): boolean {
  return hasIndexedExtension(path) && !path.split('/').some((s) => NEVER.has(s));
}

/** Workspace-relative paths (forward slashes) of the files to index, sorted. */
export async function listSourceFiles(root: string, opts: { gitTimeoutMs?: number } = {}): Promise<string[]> {
  const out = await runSafeGit(root, ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--deduplicate'], { timeoutMs: opts.gitTimeoutMs ?? 15_000, maxBuffer: 256 << 20 });
  // not a repository (or git is missing): walk, honouring .gitignore files
  const files = out !== null && (out.length > 0 || (await isRepo(root))) ? out.split('\0').filter((p) => p.length > 0) : walk(root);
  return files.filter(indexable).sort();
}

async function isRepo(root: string): Promise<boolean> {
  return (await runSafeGit(root, ['rev-parse', '--is-inside-work-tree'], { timeoutMs: 5_000 }))?.trim() === 'true';
}

type Rule = { re: RegExp; dirOnly: boolean; negate: boolean };

/** One .gitignore line as a matcher on paths relative to the file's directory (the common subset of the syntax). */
export function gitignoreRule(line: string): Rule | null {
  let l = line.replace(/\s+$/, '');
  if (l === '' || l.startsWith('#')) return null;
  const negate = l.startsWith('!');
  if (negate) l = l.slice(1);
  const dirOnly = l.endsWith('/');
  if (dirOnly) l = l.slice(0, -1);
  const anchored = l.includes('/');
  if (l.startsWith('/')) l = l.slice(1);
  const body = l
    .split(/(\*\*\/|\/\*\*|\*|\?)/)
    .map((part) => (part === '**/' ? '(?:.*/)?' : part === '/**' ? '(?:/.*)?' : part === '*' ? '[^/]*' : part === '?' ? '[^/]' : part.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return { re: new RegExp(anchored ? `^${body}$` : `(?:^|/)${body}$`), dirOnly, negate };
}

function ignored(rules: { base: string; rule: Rule }[], rel: string, isDir: boolean): boolean {
  let out = false;
  for (const { base, rule } of rules) {
    if (rule.dirOnly && !isDir) continue;
    if (base !== '' && !rel.startsWith(`${base}/`)) continue;
    if (rule.re.test(base === '' ? rel : rel.slice(base.length + 1))) out = !rule.negate;
  }
  return out;
}

function walk(root: string): string[] {
  const found: string[] = [];
  const visit = (dir: string, rules: { base: string; rule: Rule }[]): void => {
    const rel = relative(root, dir).split(sep).join('/');
    let here = rules;
    try {
      const extra = readFileSync(join(dir, '.gitignore'), 'utf8').split('\n').map(gitignoreRule).filter((r): r is Rule => r !== null);
      if (extra.length > 0) here = [...rules, ...extra.map((rule) => ({ base: rel, rule }))];
    } catch {
      // no .gitignore here (or unreadable): the rules of the parents hold
    }
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // an unreadable directory holds nothing to index
    }
    for (const e of entries) {
      const path = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (!NEVER.has(e.name) && !e.name.startsWith('.') && !ignored(here, path, true)) visit(join(dir, e.name), here);
      } else if (e.isFile() && !ignored(here, path, false)) found.push(path);
    }
  };
  visit(root, []);
  return found;
}
