// The six questions answered from an index, as text for a model: every hit names its file and lines.
import type { CallRef, CodeIndex, DeclRef } from './code-index.js';
import type { Decl } from './facts.js';
import type { Resolution } from './resolve.js';

export const MAX_HITS = 50;
const MAX_GRAPH_NODES = 150;
export const MAX_SNIPPET_LINES = 400;

export type CodeQuery =
  | { op: 'search'; query: string; limit?: number }
  | { op: 'callers'; name: string; path?: string }
  | { op: 'callees'; name: string; path?: string }
  | { op: 'callgraph'; name: string; depth?: number; direction?: 'callees' | 'callers'; path?: string }
  | { op: 'skeleton'; paths: string[] }
  | { op: 'snippet'; name: string; path?: string };

const where = (r: DeclRef): string => `${r.path}:${r.decl.line}-${r.decl.endLine}`;
/** The signature, led by the kind unless its own keyword says it (`class Calc`, `def walk(…)` is a method). */
export const label = (d: Decl): string =>
  new RegExp(`^(?:[a-z]+ )*${d.kind}\\b`).test(d.signature) || (d.kind === 'function' && /^(?:async )?(?:func|def)\b/.test(d.signature)) ? d.signature : `${d.kind} ${d.signature}`;
const head = (r: DeclRef): string => `${where(r)} ${label(r.decl)}`;

/** `fooBar_baz` → foo, bar, baz (lower case). */
function words(s: string): string[] {
  return s.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 1);
}

/** By name first (exact, then case-insensitive prefix, then substring), then by behaviour: the query's words found in
 *  a declaration's name, its signature and its file's path. */
export function search(ix: CodeIndex, query: string, limit = 20): string {
  const q = query.trim();
  const lower = q.toLowerCase();
  const qWords = words(q);
  const scored: { r: DeclRef; score: number }[] = [];
  for (const [name, refs] of ix.allNames()) {
    const n = name.toLowerCase();
    let base = name === q ? 100 : n === lower ? 90 : n.startsWith(lower) ? 60 : lower.length > 2 && n.includes(lower) ? 40 : 0;
    const nameWords = words(name);
    for (const r of refs) {
      let score = base;
      if (score === 0 && qWords.length > 0) {
        const hay = new Set([...nameWords, ...words(r.decl.signature), ...words(r.path)]);
        const hit = qWords.filter((w) => hay.has(w) || nameWords.some((nw) => nw.startsWith(w))).length;
        if (hit > 0) score = (20 * hit) / qWords.length + (nameWords.some((w) => qWords.includes(w)) ? 5 : 0);
      }
      if (score > 0) scored.push({ r, score: score + (r.decl.parent === -1 ? 1 : 0) });
    }
    base = 0;
  }
  scored.sort((a, b) => b.score - a.score || a.r.path.localeCompare(b.r.path) || a.r.decl.line - b.r.decl.line);
  const shown = scored.slice(0, Math.min(limit, MAX_HITS));
  if (shown.length === 0) return `No declaration matches "${q}".`;
  const more = scored.length > shown.length ? `\n[${scored.length - shown.length} more matches not shown]` : '';
  return shown.map((s) => head(s.r)).join('\n') + more;
}

function definitions(ix: CodeIndex, name: string, path?: string): DeclRef[] {
  const all = ix.declsNamed(name);
  return path === undefined ? all : all.filter((r) => r.path === path);
}

function noSuch(name: string, path?: string): string {
  return `No declaration named "${name}"${path !== undefined ? ` in ${path}` : ''} is indexed (try codeseek_search).`;
}

const refKey = (r: DeclRef): string => `${r.path}#${r.index}`;
const UNRESOLVED_NOTE = 'unresolved: a method call on an object or a name not imported, so matched by name only';

/** The call sites of `name` that reach one of `defs` (or may: unresolved), and how many reach something else. */
function sitesReaching(ix: CodeIndex, name: string, defs: DeclRef[]): { sites: { site: CallRef; unresolved: boolean }[]; elsewhere: number } {
  const want = new Set(defs.map(refKey));
  const out: { site: CallRef; unresolved: boolean }[] = [];
  let elsewhere = 0;
  for (const site of [...ix.callsTo(name), ...ix.callsToAliases(name)]) {
    const r = ix.resolve(site.path, site.call);
    if (r.kind === 'unresolved') out.push({ site, unresolved: true });
    else if (defs.length === 0) out.push({ site, unresolved: false });
    else if (r.kind === 'resolved' && r.targets.some((t) => want.has(refKey(t)))) out.push({ site, unresolved: false });
    else elsewhere++;
  }
  return { sites: out, elsewhere };
}

/** Call sites of `name` resolved through the caller's imports to its declaration(s), grouped by the declaration that
 *  contains them; unresolved sites (matched by name) are listed and marked. */
export function callers(ix: CodeIndex, name: string, path?: string): string {
  const defs = definitions(ix, name, path);
  const { sites, elsewhere } = sitesReaching(ix, name, defs);
  const lines = [defs.length > 0 ? `Defined at:\n${defs.map((r) => `  ${head(r)}`).join('\n')}` : `No declaration named "${name}" is indexed; call sites by that name:`];
  const other = elsewhere > 0 ? `\n(${elsewhere} call(s) of another "${name}" — imported from elsewhere or a package — not counted)` : '';
  if (sites.length === 0) return `${lines[0]}\nNo call sites of ${name} found.${other}`;
  const byCaller = new Map<string, { at: number[]; maybe: number[] }>();
  for (const { site: s, unresolved } of sites) {
    const c = s.caller;
    const key = c !== null ? `${s.path}:${c.line}-${c.endLine} ${c.kind} ${c.name}` : `${s.path} (top level)`;
    const g = byCaller.get(key) ?? { at: [], maybe: [] };
    (unresolved ? g.maybe : g.at).push(s.call.line);
    byCaller.set(key, g);
  }
  const keys = [...byCaller.keys()].sort();
  const maybe = sites.filter((s) => s.unresolved).length;
  lines.push(`${sites.length} call site(s) in ${keys.length} caller(s)${maybe > 0 ? ` (${maybe} ${UNRESOLVED_NOTE})` : ''}:`);
  for (const k of keys.slice(0, MAX_HITS)) {
    const g = byCaller.get(k) ?? { at: [], maybe: [] };
    const parts = [g.at.length > 0 ? `calls at line ${g.at.join(', ')}` : '', g.maybe.length > 0 ? `unresolved call at line ${g.maybe.join(', ')}` : ''].filter((x) => x !== '');
    lines.push(`  ${k} — ${parts.join('; ')}`);
  }
  if (keys.length > MAX_HITS) lines.push(`[${keys.length - MAX_HITS} more callers not shown]`);
  return lines.join('\n') + other;
}

interface CalleeGroup {
  name: string;
  lines: number[];
  res: Resolution<DeclRef>;
}

/** What `r` calls in its own body, each call resolved (grouped by name and outcome). */
function calleesOf(ix: CodeIndex, r: DeclRef): CalleeGroup[] {
  const out = new Map<string, CalleeGroup>();
  for (const c of ix.file(r.path)?.facts.calls ?? []) {
    if (c.caller !== r.index) continue;
    const res = ix.resolve(r.path, c);
    const key = `${c.callee}\0${res.kind === 'resolved' ? res.targets.map(refKey).join(',') : res.kind === 'external' ? `ext:${res.from ?? ''}` : '?'}`;
    const g = out.get(key) ?? { name: c.callee, lines: [], res };
    g.lines.push(c.line);
    out.set(key, g);
  }
  return [...out.values()].sort((a, b) => (a.lines[0] ?? 0) - (b.lines[0] ?? 0));
}

function targetsText(ix: CodeIndex, g: CalleeGroup): string {
  const list = (t: DeclRef[]): string => t.slice(0, 3).map(where).join(', ') + (t.length > 3 ? ` (+${t.length - 3})` : '');
  if (g.res.kind === 'resolved') return list(g.res.targets);
  if (g.res.kind === 'external') return g.res.from !== undefined ? `outside the workspace ("${g.res.from}")` : 'not declared in the workspace';
  const byName = ix.declsNamed(g.name);
  return byName.length === 0 ? 'not declared in the workspace' : `unresolved, by name: ${list(byName)}`;
}

export function callees(ix: CodeIndex, name: string, path?: string): string {
  const defs = definitions(ix, name, path);
  if (defs.length === 0) return noSuch(name, path);
  const lines: string[] = [];
  for (const r of defs.slice(0, 10)) {
    const calls = calleesOf(ix, r);
    lines.push(`${head(r)} calls ${new Set(calls.map((g) => g.name)).size} name(s):`);
    for (const g of calls) lines.push(`  ${g.name} (line ${g.lines.join(', ')}) → ${targetsText(ix, g)}`);
  }
  return lines.join('\n');
}

export function callgraph(ix: CodeIndex, name: string, depth = 2, direction: 'callees' | 'callers' = 'callees', path?: string): string {
  const roots = definitions(ix, name, path);
  if (roots.length === 0) return noSuch(name, path);
  const d = Math.max(1, Math.min(depth, 6));
  const lines: string[] = [`${direction} of ${name} to depth ${d}:`];
  const seen = new Set<string>();
  let nodes = 0;
  const visit = (label: string, refs: DeclRef[], level: number): void => {
    if (nodes++ >= MAX_GRAPH_NODES) return;
    const key = refs.map(where).join('|') || label;
    const again = seen.has(key);
    lines.push(`${'  '.repeat(level)}${label}${refs.length > 0 ? ` [${refs.slice(0, 2).map(where).join(', ')}]` : ''}${again ? ' (see above)' : ''}`);
    if (again || level >= d) return;
    seen.add(key);
    const next = new Map<string, DeclRef[]>();
    const add = (n: string, r?: DeclRef): void => {
      const list = next.get(n) ?? [];
      if (r !== undefined && !list.some((x) => refKey(x) === refKey(r))) list.push(r);
      next.set(n, list);
    };
    const outside: string[] = [];
    for (const r of refs) {
      if (direction === 'callees') {
        for (const g of calleesOf(ix, r)) {
          if (g.res.kind === 'resolved') for (const t of g.res.targets) add(g.name, t);
          else if (g.res.kind === 'unresolved' && ix.declsNamed(g.name).length > 0) for (const t of ix.declsNamed(g.name)) add(`${g.name} (unresolved: by name)`, t);
          else if (!outside.includes(g.name)) outside.push(g.name);
        }
      } else {
        for (const { site: s, unresolved } of sitesReaching(ix, r.decl.name, [r]).sites) {
          const mark = unresolved ? ' (unresolved: by name)' : '';
          if (s.caller === null) add(`${s.path} (top level)${mark}`);
          else add(`${s.caller.name}${mark}`, ix.declsNamed(s.caller.name).find((x) => x.path === s.path && x.decl.line === s.caller?.line));
        }
      }
    }
    for (const n of [...next.keys()].sort()) visit(n, next.get(n) ?? [], level + 1);
    if (outside.length > 0) lines.push(`${'  '.repeat(level + 1)}(not declared in the workspace: ${outside.sort().join(', ')})`);
  };
  visit(name, roots, 0);
  if (nodes > MAX_GRAPH_NODES) lines.push(`[graph cut at ${MAX_GRAPH_NODES} nodes]`);
  return lines.join('\n');
}

export function skeleton(ix: CodeIndex, paths: string[]): string {
  const out: string[] = [];
  for (const p of paths.slice(0, 20)) {
    const e = ix.file(p);
    if (!e) {
      out.push(`${p}: not indexed (no grammar for it, ignored by .gitignore, or missing)`);
      continue;
    }
    const depth = (d: Decl): number => (d.parent >= 0 ? 1 + depth(e.facts.decls[d.parent] as Decl) : 0);
    out.push(`${p} (${e.facts.lang}, ${e.facts.decls.length} declarations, ${e.facts.imports.length} imports${e.facts.partial ? ', parse errors: partial' : ''})`);
    for (const d of e.facts.decls) out.push(`${'  '.repeat(depth(d) + 1)}${d.line}-${d.endLine} ${label(d)}`);
  }
  return out.join('\n');
}

/** The declarations a snippet would show (the caller reads their lines from disk). */
export function snippetTargets(ix: CodeIndex, name: string, path?: string): DeclRef[] {
  return definitions(ix, name, path).slice(0, 5);
}

export function renderSnippet(r: DeclRef, source: string): string {
  const all = source.split('\n');
  const last = Math.min(r.decl.endLine, r.decl.line + MAX_SNIPPET_LINES - 1);
  const body = all.slice(r.decl.line - 1, last).map((l, i) => `${String(r.decl.line + i).padStart(6)}\t${l}`).join('\n');
  const cut = last < r.decl.endLine ? `\n[${r.decl.endLine - last} more lines: read_file ${r.path} from line ${last + 1}]` : '';
  return `${where(r)} ${r.decl.kind} ${r.decl.name}\n${body}${cut}`;
}

/** Asks who calls (and what is called by) one declaration that has call sites, answers discarded: run after a build,
 *  off any question's path, so that the first real question does not pay for compiling and warming the answer path
 *  (1–2 ms, the p99 of `callers` otherwise). */
export function warmAnswers(ix: CodeIndex): void {
  for (const [name] of ix.allNames()) {
    if (ix.callsTo(name).length === 0) continue;
    callers(ix, name);
    callees(ix, name);
    return;
  }
}
