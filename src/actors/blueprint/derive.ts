// The blueprint's derived layer, recomputed from the code on every run and never stored: modules (directories with
// source), their file counts and languages, the import edges between them (each import resolved to an indexed file,
// from the parse), entry points and manifests, and the structural fingerprint that makes stored prose stale.
import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { nodeCrypto } from '../../runtime/lazy-builtins.js';
import { goModuleOf, resolveImport, type SourceFile } from '../codeseek/resolve-import.js';

export type { SourceFile };

export interface Derived {
  modules: { name: string; files: number; langs: string[] }[];
  /** File → file edges (both indexed files), from resolved imports. */
  fileEdges: [from: string, to: string][];
  /** Module → module edges with the number of file edges behind each. */
  edges: { from: string; to: string; count: number }[];
  manifests: string[];
  entries: string[];
  fingerprint: string;
}

const moduleOf = (path: string): string => (path.includes('/') ? posix.dirname(path) : '.');

const MANIFESTS = ['package.json', 'go.mod', 'pyproject.toml', 'setup.py', 'setup.cfg', 'requirements.txt', 'Cargo.toml', 'pom.xml', 'build.gradle', 'Gemfile', 'composer.json'];

function entriesOf(root: string, files: readonly SourceFile[]): string[] {
  const out = new Set<string>();
  try {
    const pj = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { main?: unknown; bin?: unknown };
    if (typeof pj.main === 'string') out.add(pj.main);
    if (typeof pj.bin === 'string') out.add(pj.bin);
    else if (pj.bin !== null && typeof pj.bin === 'object') for (const v of Object.values(pj.bin)) if (typeof v === 'string') out.add(v);
  } catch {
    // no package.json (or not JSON): no declared entry points from it
  }
  for (const f of files) if (/(^|\/)(main\.go|__main__\.py|main\.py|manage\.py)$/.test(f.path)) out.add(f.path);
  return [...out].map((p) => p.replace(/^\.\//, '')).sort();
}

export function derive(root: string, files: readonly SourceFile[]): Derived {
  const paths = new Set(files.map((f) => f.path));
  const goModule = goModuleOf(root);
  const mods = new Map<string, { files: number; langs: Set<string> }>();
  const fileEdges: [string, string][] = [];
  const edgeCount = new Map<string, number>();
  for (const f of files) {
    const m = moduleOf(f.path);
    const entry = mods.get(m) ?? { files: 0, langs: new Set<string>() };
    entry.files++;
    entry.langs.add(f.lang);
    mods.set(m, entry);
    const seen = new Set<string>();
    for (const spec of f.imports) {
      const to = resolveImport(f, spec, paths, goModule);
      if (to === null || to === f.path || seen.has(to)) continue;
      seen.add(to);
      fileEdges.push([f.path, to]);
      const [a, b] = [m, moduleOf(to)];
      if (a !== b) edgeCount.set(`${a}\0${b}`, (edgeCount.get(`${a}\0${b}`) ?? 0) + 1);
    }
  }
  const modules = [...mods.entries()].map(([name, v]) => ({ name, files: v.files, langs: [...v.langs].sort() })).sort((a, b) => a.name.localeCompare(b.name));
  const edges = [...edgeCount.entries()].map(([k, count]) => {
    const [from = '', to = ''] = k.split('\0');
    return { from, to, count };
  }).sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
  const manifests = MANIFESTS.filter((m) => existsSync(join(root, m)));
  const entries = entriesOf(root, files);
  // structure only: the module set, which module imports which, manifests (file counts and content do not count)
  const shape = JSON.stringify([modules.map((m) => m.name), edges.map((e) => [e.from, e.to]), manifests]);
  // hashed at its first read (a stored prose to compare with, an export): node:crypto stays off the Director's path
  // to its first request in a project with no blueprint yet
  let fingerprint: string | undefined;
  return {
    modules, fileEdges: fileEdges.sort((a, b) => a[0].localeCompare(b[0]) || a[1].localeCompare(b[1])), edges, manifests, entries,
    get fingerprint(): string {
      return (fingerprint ??= nodeCrypto().createHash('sha256').update(shape).digest('hex').slice(0, 16));
    },
  };
}

/** The derived layer as text within `maxChars` (modules with most files first; a cut is said). */
export function renderDerived(d: Derived, maxChars: number): string {
  const lines = [
    `Manifests: ${d.manifests.join(', ') || 'none'}. Entry points: ${d.entries.join(', ') || 'none found'}.`,
    `Modules (${d.modules.length}; files, languages; → imports from other modules):`,
  ];
  const out = new Map<string, string[]>();
  for (const e of d.edges) out.set(e.from, [...(out.get(e.from) ?? []), e.to]);
  const order = [...d.modules].sort((a, b) => b.files - a.files || a.name.localeCompare(b.name));
  let used = lines.join('\n').length;
  let shown = 0;
  for (const m of order) {
    const deps = out.get(m.name) ?? [];
    const line = `- ${m.name} (${m.files}, ${m.langs.join('/')})${deps.length > 0 ? ` → ${deps.join(', ')}` : ''}`;
    if (used + line.length + 1 > maxChars) break;
    lines.push(line);
    used += line.length + 1;
    shown++;
  }
  if (shown < order.length) lines.push(`[${order.length - shown} smaller modules not shown: read_blueprint lists them all]`);
  return lines.join('\n');
}
