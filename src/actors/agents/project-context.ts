// Project context: root docs (all of YAGENT.md, CLAUDE.md, AGENTS.md) and per-delegation module docs.
import { readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { glob } from 'tinyglobby';

export const ROOT_DOC_NAMES = ['YAGENT.md', 'CLAUDE.md', 'AGENTS.md'] as const;
export const MODULE_DOC_MAX_DOCS = 3;
export const MODULE_DOC_MAX_BYTES = 12 * 1024;

export interface RootContext {
  files: string[];
  text: string;
}

export interface ModuleDocs {
  /** Workspace-relative paths of the docs included, deepest first. */
  included: string[];
  omitted: string[];
  text: string;
}

/** One per session: the root docs and the doc list are read once and cached. */
export class ProjectContext {
  private root: Promise<RootContext> | null = null;
  private docs: Promise<string[]> | null = null;

  constructor(readonly workspace: string) {}

  rootContext(): Promise<RootContext> {
    this.root ??= loadRootContext(this.workspace);
    return this.root;
  }

  /** Nested AGENTS.md files that exist on disk (the denominator: never guessed paths). */
  moduleDocPaths(): Promise<string[]> {
    this.docs ??= glob('**/AGENTS.md', {
      cwd: this.workspace,
      ignore: ['**/node_modules/**', '**/.git/**', '**/dist/**'],
      deep: 12,
    }).then((paths) => paths.map((p) => p.split('\\').join('/')).filter((p) => p !== 'AGENTS.md'));
    return this.docs;
  }

  async moduleDocsForTask(task: string): Promise<ModuleDocs> {
    return selectModuleDocs(this.workspace, await this.moduleDocPaths(), task);
  }
}

export async function loadRootContext(workspace: string): Promise<RootContext> {
  // read side by side: this is on the path to the first model request, and most names do not exist
  // a probe: a name that is missing or unreadable is simply not part of the root context
  const read = await Promise.all(ROOT_DOC_NAMES.map(async (name) => ({ name, text: await readFile(join(workspace, name), 'utf8').catch(() => null) })));
  const found = read.filter((d): d is { name: (typeof ROOT_DOC_NAMES)[number]; text: string } => d.text !== null);
  return { files: found.map((d) => d.name), text: found.map((d) => `<!-- ${d.name} -->\n${d.text.trimEnd()}`).join('\n\n') };
}

/** Directory-like tokens the task names (`src/store`, `./bin/`, `src/a/b.ts`). */
export function pathsNamedIn(task: string): string[] {
  const out = new Set<string>();
  for (const m of task.matchAll(/(?:^|[\s`'"(\[])(\.{0,2}\/?[\w@.-]+(?:\/[\w@.-]+)*\/?)(?=$|[\s`'"),.:;\]])/g)) {
    const tok = m[1];
    if (!tok.includes('/')) continue;
    const norm = posix.normalize(tok.replace(/^\.\//, '')).replace(/\/$/, '');
    if (norm === '' || norm === '.' || norm.startsWith('..') || norm.startsWith('/')) continue;
    out.add(norm);
  }
  return [...out];
}

/** Docs of the named directories and their ancestors, deepest first, ≤ 3 docs / 12 KB; root excluded. */
export async function selectModuleDocs(workspace: string, docPaths: readonly string[], task: string): Promise<ModuleDocs> {
  const named = pathsNamedIn(task);
  const dirs = docPaths.map((p) => posix.dirname(p)).filter((d) => d !== '.');
  const wanted = dirs.filter((d) => named.some((n) => n === d || n.startsWith(`${d}/`)));
  wanted.sort((a, b) => depth(b) - depth(a) || a.localeCompare(b));
  const included: string[] = [];
  const omitted: string[] = [];
  const parts: string[] = [];
  let bytes = 0;
  for (const dir of wanted) {
    const rel = `${dir}/AGENTS.md`;
    const text = await readFile(join(workspace, rel), 'utf8').catch(() => null); // a probe: most directories have none
    if (text === null) continue;
    const size = Buffer.byteLength(text);
    if (included.length >= MODULE_DOC_MAX_DOCS || bytes + size > MODULE_DOC_MAX_BYTES) {
      omitted.push(rel);
      continue;
    }
    included.push(rel);
    bytes += size;
    parts.push(`<!-- ${rel} -->\n${text.trimEnd()}`);
  }
  if (omitted.length > 0) {
    parts.push(`[module docs left out (budget ${MODULE_DOC_MAX_DOCS} docs / ${MODULE_DOC_MAX_BYTES / 1024} KB): ${omitted.join(', ')} — read them with read_file if needed]`);
  }
  return { included, omitted, text: parts.join('\n\n') };
}

function depth(dir: string): number {
  return dir.split('/').length;
}
