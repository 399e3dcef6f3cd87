// The names an import binds, from the nodes the query captured with it (no walk of the tree: each node crossing
// from the wasm parser costs): TS/JS `import d, { a as b }, * as ns` and `export { x } from` / `export * from` read
// off the captured statement's text, Python `import a.b [as c]` and `from m import x [as y], *`, Go
// `import [alias] "path"` (the package name is the path's last element).
import type { LangId } from './queries.js';

type Binding = [local: string, imported: string];

const ID = /^[A-Za-z_$][\w$]*$/;
/** Comments inside an import statement (`import { a, // why` …) are no names. */
const COMMENTS = /\/\*[\s\S]*?\*\/|\/\/[^\n]*|#[^\n]*/g;

/** A member call's object, when it is a plain dotted name (`x`, `os.path`); '' otherwise. */
export function recvName(text: string): string {
  return text.length <= 120 && /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/.test(text) ? text : '';
}

/** `spec` as written, `stmt` the statement's text when captured, `alias` the alias node's text when captured. */
export function bindingsOf(lang: LangId, spec: string, stmt: string | undefined, alias: string | undefined): Binding[] | undefined {
  if (lang === 'go') {
    // a dot import puts the package's names in the file's scope: a star; a blank import binds nothing
    if (alias === '_') return [];
    if (alias === '.') return [['*', '*']];
    return [[alias ?? spec.slice(spec.lastIndexOf('/') + 1), '*']];
  }
  if (lang === 'python') {
    if (stmt === undefined) return [[alias ?? spec, '*']];
    return fromImport(stmt);
  }
  return stmt === undefined ? undefined : script(stmt.replace(COMMENTS, ' '));
}

function script(text: string): Binding[] {
  const out: Binding[] = [];
  const exp = /^export\s/.test(text);
  const m = /^(?:import|export)\s+(?:type\s+)?([\s\S]*?)\s*from\s*['"]/.exec(text);
  const clause = m?.[1] ?? '';
  const ns = /\*\s*as\s+([A-Za-z_$][\w$]*)/.exec(clause);
  if (ns?.[1] !== undefined) out.push([ns[1], '*']);
  else if (exp && /^\*$/.test(clause)) out.push(['*', '*']);
  const def = /^([A-Za-z_$][\w$]*)\s*(?:,|$)/.exec(clause);
  if (!exp && def?.[1] !== undefined) out.push([def[1], 'default']);
  const braces = /\{([\s\S]*?)\}/.exec(clause);
  for (const part of braces?.[1]?.split(',') ?? []) {
    const [name, as] = part.trim().replace(/^type\s+/, '').split(/\s+as\s+/);
    if (name !== undefined && ID.test(name)) out.push([as !== undefined && ID.test(as) ? as : name, name]);
  }
  return out;
}

function fromImport(text: string): Binding[] {
  const at = /\bimport\b/.exec(text.replace(/^from\s+\S+/, (x) => ' '.repeat(x.length)));
  if (at === null) return [];
  const names = text.slice(at.index + 6).replace(COMMENTS, ' ').replace(/[()\\]/g, ' ');
  const out: Binding[] = [];
  for (const part of names.split(',')) {
    const [name, as] = part.trim().split(/\s+as\s+/);
    if (name === '*') out.push(['*', '*']);
    else if (name !== undefined && ID.test(name)) out.push([as !== undefined && ID.test(as) ? as : name, name]);
  }
  return out;
}
