// The names an import statement binds, read off the syntax around the specifier an `import` capture found:
// TS/JS `import d, { a as b }, * as ns` and `export { x } from` / `export * from`, Python `import a.b [as c]` and
// `from m import x [as y], *`, Go `import [alias] "path"` (the package name is the path's last element).
import type { Node } from 'web-tree-sitter';
import type { LangId } from './queries.js';

type Binding = [local: string, imported: string];

/** A member call's object, when it is a plain dotted name (`x`, `os.path`); '' otherwise. */
export function recvName(node: Node): string {
  const t = node.text;
  return t.length <= 120 && /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/.test(t) ? t : '';
}

export function bindingsOf(lang: LangId, spec: Node): Binding[] | undefined {
  if (lang === 'python') return python(spec);
  if (lang === 'go') return go(spec);
  return script(spec);
}

function script(spec: Node): Binding[] | undefined {
  const stmt = spec.parent?.parent;
  if (!stmt || (stmt.type !== 'import_statement' && stmt.type !== 'export_statement')) return undefined;
  const out: Binding[] = [];
  for (const c of stmt.namedChildren) {
    if (c.type === 'import_clause') {
      for (const k of c.namedChildren) {
        if (k.type === 'identifier') out.push([k.text, 'default']);
        else if (k.type === 'namespace_import') out.push([k.namedChildren[0]?.text ?? '', '*']);
        else if (k.type === 'named_imports') for (const s of k.namedChildren) named(s, out);
      }
    } else if (c.type === 'export_clause') for (const s of c.namedChildren) named(s, out);
    else if (c.type === 'namespace_export') out.push([c.namedChildren[0]?.text ?? '', '*']);
  }
  if (stmt.type === 'export_statement' && out.length === 0) out.push(['*', '*']);
  return out.filter(([l]) => l !== '');
}

function named(s: Node, out: Binding[]): void {
  const name = s.childForFieldName('name')?.text;
  if (name !== undefined) out.push([s.childForFieldName('alias')?.text ?? name, name]);
}

function python(spec: Node): Binding[] | undefined {
  const p = spec.parent;
  if (!p) return undefined;
  if (p.type === 'import_statement') return [[spec.text, '*']];
  if (p.type === 'aliased_import') return [[p.childForFieldName('alias')?.text ?? spec.text, '*']];
  if (p.type !== 'import_from_statement') return undefined;
  const out: Binding[] = [];
  for (const n of p.childrenForFieldName('name')) {
    if (n.type === 'aliased_import') {
      const name = n.childForFieldName('name')?.text ?? '';
      out.push([n.childForFieldName('alias')?.text ?? name, name]);
    } else out.push([n.text, n.text]);
  }
  if (p.namedChildren.some((c) => c.type === 'wildcard_import')) out.push(['*', '*']);
  return out;
}

function go(spec: Node): Binding[] | undefined {
  const p = spec.parent;
  if (p?.type !== 'import_spec') return undefined;
  const alias = p.childForFieldName('name')?.text;
  const path = spec.text.replace(/^"|"$/g, '');
  // a dot import puts the package's names in the file's scope: a star; a blank import binds nothing
  if (alias === '_') return [];
  if (alias === '.') return [['*', '*']];
  return [[alias ?? path.slice(path.lastIndexOf('/') + 1), '*']];
}
