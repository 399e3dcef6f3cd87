// One file's facts from its parse: declarations with signatures and line ranges, call sites attributed to the
// innermost enclosing declaration, and import specifiers. Everything comes from syntax nodes, never a text match.
import type { Node, Tree } from 'web-tree-sitter';
import type { CallSite, Decl, DeclKind, FileFacts, ImportRef, TypedName } from './facts.js';
import { bindingsOf, recvName } from './bindings.js';
import { grammar, type Grammar } from './grammars.js';
import type { LangId } from './queries.js';

const SIGNATURE_MAX = 240;

interface RawDecl extends Decl {
  start: number;
  end: number;
}

/** Whitespace that collapsing would change: a run of two, or one that is not a plain space. */
const LOOSE_SPACE = /\s\s|[^\S ]/;

function signatureOf(source: string, start: number, end: number, body: Node | undefined, lang: LangId, kind: DeclKind): string {
  let stop = body !== undefined ? body.startIndex : source.indexOf('\n', start);
  if (stop === -1 || stop > end) stop = end;
  let sig = source.slice(start, stop).trim();
  if (LOOSE_SPACE.test(sig)) sig = sig.replace(/\s+/g, ' ');
  if (lang === 'go' && (kind === 'struct' || kind === 'interface')) sig = `type ${sig} ${kind}`;
  return sig.length > SIGNATURE_MAX ? `${sig.slice(0, SIGNATURE_MAX - 1)}…` : sig;
}

/** Sets each declaration's 1-based end line (its end is exclusive): newlines before the end + 1, as tree-sitter's
 *  end row, counted from the start line (asking the node for its end position is a call into wasm per decl). */
function setEndLines(source: string, decls: RawDecl[]): void {
  for (const d of decls) {
    let line = d.line;
    for (let i = source.indexOf('\n', d.start); i !== -1 && i < d.end; i = source.indexOf('\n', i + 1)) line++;
    d.endLine = line;
  }
}

function unquote(text: string): string {
  return text.replace(/^["'`]|["'`]$/g, '');
}

/** Parses `source` as `lang` and extracts its facts (the tree is freed before returning). */
export async function extractFacts(lang: LangId, source: string): Promise<FileFacts> {
  return extractWith(await grammar(lang), lang, source);
}

/** `extractFacts` with the grammar at hand: no promise per file. */
export function extractWith(g: Grammar, lang: LangId, source: string): FileFacts {
  const tree: Tree | null = g.parser.parse(source);
  if (tree === null) throw new Error(`the ${lang} parser returned no tree`);
  try {
    const decls: RawDecl[] = [];
    const calls: CallSite[] = [];
    // each call's offset, for its enclosing declaration (not kept in the facts)
    const starts: number[] = [];
    const imports: ImportRef[] = [];
    // typed names with their offsets (for their scope) and whether each is a field (its scope is then its class)
    const typed: { caller: number; t: TypedName; field: boolean }[] = [];
    const typedAt: number[] = [];
    for (const m of g.query.matches(tree.rootNode)) {
      let declNode: Node | undefined, kind: DeclKind | undefined, name: Node | undefined, body: Node | undefined, callee: Node | undefined, recv: Node | undefined;
      let spec: Node | undefined, stmt: Node | undefined, alias: Node | undefined;
      let tvar: Node | undefined, tfield: Node | undefined, ttype: Node | undefined, tobj: Node | undefined;
      for (const c of m.captures) {
        if (c.name.startsWith('decl.')) [declNode, kind] = [c.node, c.name.slice(5) as DeclKind];
        else if (c.name === 'name') name = c.node;
        else if (c.name === 'body') body = c.node;
        else if (c.name === 'callee') callee = c.node;
        else if (c.name === 'recv') recv = c.node;
        else if (c.name === 'import') spec = c.node;
        else if (c.name === 'import.stmt') stmt = c.node;
        else if (c.name === 'import.alias') alias = c.node;
        else if (c.name === 'ttype') ttype = c.node;
        else if (c.name === 'tvar') tvar = c.node;
        else if (c.name === 'tfield') tfield = c.node;
        else if (c.name === 'tobj') tobj = c.node;
      }
      if (declNode && kind && name) {
        const start = declNode.startIndex;
        const end = declNode.endIndex;
        decls.push({
          name: source.slice(name.startIndex, name.endIndex), kind, line: declNode.startPosition.row + 1, endLine: 0,
          signature: signatureOf(source, start, end, body, lang, kind), parent: -1, start, end,
        });
      } else if (callee) {
        // the callee's position stands for the call's: it lies inside the call, so it has the same innermost decl
        const text = source.slice(callee.startIndex, callee.endIndex);
        const line = (recv ?? callee).startPosition.row + 1;
        calls.push(recv !== undefined ? { callee: text, recv: recvName(source.slice(recv.startIndex, recv.endIndex)), line, caller: -1 } : { callee: text, line, caller: -1 });
        starts.push(callee.startIndex);
      } else if (spec) {
        const text = unquote(source.slice(spec.startIndex, spec.endIndex));
        const names = bindingsOf(lang, text, stmt && source.slice(stmt.startIndex, stmt.endIndex), alias && source.slice(alias.startIndex, alias.endIndex));
        imports.push({ spec: text, line: spec.startPosition.row + 1, ...(names !== undefined ? { names } : {}) });
      } else if (ttype) {
        const at = tvar ?? tfield;
        // Python: only `self.f = C()` names a field
        if (at === undefined || (tobj !== undefined && source.slice(tobj.startIndex, tobj.endIndex) !== 'self')) continue;
        const own = source.slice(at.startIndex, at.endIndex);
        const field = tvar === undefined;
        typed.push({ caller: -1, field, t: { name: field ? `${lang === 'python' ? 'self' : 'this'}.${own}` : own, type: source.slice(ttype.startIndex, ttype.endIndex), scope: -1 } });
        typedAt.push(at.startIndex);
      }
    }
    setEndLines(source, decls);
    const sorted = nest(decls);
    return { lang, decls: sorted, calls: attribute(decls, calls, starts), imports, typed: scoped(sorted, attribute(decls, typed, typedAt)), partial: tree.rootNode.hasError };
  } finally {
    tree.delete();
  }
}

/** Orders declarations by position (in place) and links each to its container (a Python function in a class is a
 *  method); returns them without their offsets. */
function nest(raw: RawDecl[]): Decl[] {
  if (!inOrder(raw, (a, b) => a.start - b.start || b.end - a.end)) raw.sort((a, b) => a.start - b.start || b.end - a.end);
  const stack: number[] = [];
  return raw.map((d, i) => {
    while (stack.length > 0 && (raw[stack[stack.length - 1] as number] as RawDecl).end <= d.start) stack.pop();
    const parent = stack.length > 0 ? (stack[stack.length - 1] as number) : -1;
    stack.push(i);
    const kind = d.kind === 'function' && parent >= 0 && (raw[parent] as RawDecl).kind === 'class' ? 'method' : d.kind;
    return { name: d.name, kind, line: d.line, endLine: d.endLine, signature: d.signature, parent };
  });
}

/** Each typed name with its scope: the innermost declaration around it, for a field the class around that. */
function scoped(decls: Decl[], typed: { caller: number; t: TypedName; field: boolean }[]): TypedName[] {
  return typed.map(({ caller, t, field }) => {
    let scope = caller;
    if (field) while (scope >= 0 && decls[scope]?.kind !== 'class') scope = decls[scope]?.parent ?? -1;
    t.scope = scope;
    return t;
  });
}

/** Orders the calls by position and sets each one's innermost enclosing declaration (`raw` is in position order). */
function attribute<T extends { caller: number }>(raw: RawDecl[], calls: T[], starts: number[]): T[] {
  let order: number[] | null = null;
  for (let i = 1; i < starts.length; i++) {
    if ((starts[i] as number) < (starts[i - 1] as number)) {
      order = starts.map((_, k) => k).sort((a, b) => (starts[a] as number) - (starts[b] as number));
      break;
    }
  }
  const open: number[] = [];
  let next = 0;
  const out = order === null ? calls : order.map((k) => calls[k] as T);
  for (let i = 0; i < out.length; i++) {
    const at = starts[order === null ? i : (order[i] as number)] as number;
    while (next < raw.length && (raw[next] as RawDecl).start <= at) open.push(next++);
    // a decl that ended before the call may hide under a later-opened, still-open one: drop every closed one on top
    while (open.length > 0 && (raw[open[open.length - 1] as number] as RawDecl).end <= at) open.pop();
    (out[i] as T).caller = innermostOpen(open, raw, at);
  }
  return out;
}

function inOrder<T>(list: T[], cmp: (a: T, b: T) => number): boolean {
  for (let i = 1; i < list.length; i++) if (cmp(list[i - 1] as T, list[i] as T) > 0) return false;
  return true;
}

function innermostOpen(open: number[], raw: RawDecl[], at: number): number {
  for (let i = open.length - 1; i >= 0; i--) {
    const d = raw[open[i] as number] as RawDecl;
    if (d.start <= at && at < d.end) return open[i] as number;
  }
  return -1;
}
