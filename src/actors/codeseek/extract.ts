// One file's facts from its parse: declarations with signatures and line ranges, call sites attributed to the
// innermost enclosing declaration, and import specifiers. Everything comes from syntax nodes, never a text match.
import type { Node, Tree } from 'web-tree-sitter';
import type { CallSite, Decl, DeclKind, FileFacts, ImportRef } from './facts.js';
import { bindingsOf, recvName } from './bindings.js';
import { grammar } from './grammars.js';
import type { LangId } from './queries.js';

const SIGNATURE_MAX = 240;

interface RawCall {
  callee: string;
  recv?: string;
  line: number;
  start: number;
}

interface RawDecl extends Decl {
  start: number;
  end: number;
}

function signatureOf(source: string, decl: Node, body: Node | undefined, lang: LangId, kind: DeclKind): string {
  const head = body !== undefined ? source.slice(decl.startIndex, body.startIndex) : (decl.text.split('\n')[0] ?? '');
  let sig = head.replace(/\s+/g, ' ').trim();
  if (lang === 'go' && (kind === 'struct' || kind === 'interface')) sig = `type ${sig} ${kind}`;
  return sig.length > SIGNATURE_MAX ? `${sig.slice(0, SIGNATURE_MAX - 1)}…` : sig;
}

/** 1-based end line of each offset (a node's end is exclusive): newlines before it + 1, as tree-sitter's end row. */
function endRows(source: string, ends: number[]): number[] {
  const nl: number[] = [];
  for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) nl.push(i);
  return ends.map((end) => {
    let lo = 0;
    let hi = nl.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((nl[mid] as number) < end) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  });
}

function unquote(text: string): string {
  return text.replace(/^["'`]|["'`]$/g, '');
}

/** Parses `source` as `lang` and extracts its facts (the tree is freed before returning). */
export async function extractFacts(lang: LangId, source: string): Promise<FileFacts> {
  const g = await grammar(lang);
  const tree: Tree | null = g.parser.parse(source);
  if (tree === null) throw new Error(`the ${lang} parser returned no tree`);
  try {
    const decls: RawDecl[] = [];
    const calls: RawCall[] = [];
    const imports: ImportRef[] = [];
    for (const m of g.query.matches(tree.rootNode)) {
      let declNode: Node | undefined, kind: DeclKind | undefined, name: Node | undefined, body: Node | undefined, callee: Node | undefined, recv: Node | undefined;
      let spec: Node | undefined, stmt: Node | undefined, alias: Node | undefined;
      for (const c of m.captures) {
        if (c.name.startsWith('decl.')) [declNode, kind] = [c.node, c.name.slice(5) as DeclKind];
        else if (c.name === 'name') name = c.node;
        else if (c.name === 'body') body = c.node;
        else if (c.name === 'callee') callee = c.node;
        else if (c.name === 'recv') recv = c.node;
        else if (c.name === 'import') spec = c.node;
        else if (c.name === 'import.stmt') stmt = c.node;
        else if (c.name === 'import.alias') alias = c.node;
      }
      if (declNode && kind && name) {
        decls.push({
          // endIndex and endPosition are each a call into the wasm parser: one, and the row from the source
          name: name.text, kind, line: declNode.startPosition.row + 1, endLine: 0,
          signature: signatureOf(source, declNode, body, lang, kind), parent: -1, start: declNode.startIndex, end: declNode.endIndex,
        });
      } else if (callee) {
        // the callee's position stands for the call's: it lies inside the call, so it has the same innermost decl
        const r = recv !== undefined ? { recv: recvName(source.slice(recv.startIndex, recv.endIndex)) } : {};
        calls.push({ callee: callee.text, line: (recv ?? callee).startPosition.row + 1, start: callee.startIndex, ...r });
      } else if (spec) {
        const text = unquote(spec.text);
        const names = bindingsOf(lang, text, stmt && source.slice(stmt.startIndex, stmt.endIndex), alias?.text);
        imports.push({ spec: text, line: spec.startPosition.row + 1, ...(names !== undefined ? { names } : {}) });
      }
    }
    const rows = endRows(source, decls.map((d) => d.end));
    decls.forEach((d, i) => (d.endLine = rows[i] ?? d.line));
    return { lang, ...nest(decls, calls), imports, partial: tree.rootNode.hasError };
  } finally {
    tree.delete();
  }
}

/** Orders declarations by position, links each to its container, and attributes every call to its innermost decl. */
function nest(raw: RawDecl[], rawCalls: RawCall[]): { decls: Decl[]; calls: CallSite[] } {
  raw.sort((a, b) => a.start - b.start || b.end - a.end);
  // python: a function directly inside a class is a method
  const stack: number[] = [];
  const decls: Decl[] = raw.map((d, i) => {
    while (stack.length > 0 && (raw[stack[stack.length - 1] as number] as RawDecl).end <= d.start) stack.pop();
    const parent = stack.length > 0 ? (stack[stack.length - 1] as number) : -1;
    stack.push(i);
    const kind = d.kind === 'function' && parent >= 0 && (raw[parent] as RawDecl).kind === 'class' ? 'method' : d.kind;
    return { name: d.name, kind, line: d.line, endLine: d.endLine, signature: d.signature, parent };
  });
  rawCalls.sort((a, b) => a.start - b.start);
  const calls: CallSite[] = [];
  const open: number[] = [];
  let next = 0;
  for (const c of rawCalls) {
    while (next < raw.length && (raw[next] as RawDecl).start <= c.start) open.push(next++);
    while (open.length > 0 && (raw[open[open.length - 1] as number] as RawDecl).end <= c.start) open.pop();
    // a decl that ended before c may hide under a later-opened, still-open one: drop every closed one on top
    calls.push({ callee: c.callee, ...(c.recv !== undefined ? { recv: c.recv } : {}), line: c.line, caller: innermostOpen(open, raw, c.start) });
  }
  return { decls, calls };
}

function innermostOpen(open: number[], raw: RawDecl[], at: number): number {
  for (let i = open.length - 1; i >= 0; i--) {
    const d = raw[open[i] as number] as RawDecl;
    if (d.start <= at && at < d.end) return open[i] as number;
  }
  return -1;
}
