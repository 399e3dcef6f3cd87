// Which declaration a call site reaches, through what the language lets the syntax say: a name declared in the same
// file (or, in Go, the same package), a name the file imports (TS/JS import specifiers and re-exports, Python
// `from m import x`, `import m` + `m.x()`), a Go package qualifier. A method call on an object (`x.m()` where `x` is
// no imported module) resolves when the syntax states x's type (`new C()`, `x: C`, a field, a Go receiver: facts.ts
// `TypedName`) and C's own method m is indexed; otherwise (an inherited method, an inferred type) it stays
// "unresolved", is matched by name, and says so.
import { posix } from 'node:path';
import type { CallSite, FileFacts } from './facts.js';
import { goModuleOf, resolveImport, type PathSet } from './resolve-import.js';

export interface DeclRefLike {
  path: string;
  index: number;
  decl: { name: string; kind: string; parent: number; signature: string };
}

export type Resolution<R extends DeclRefLike> =
  | { kind: 'resolved'; targets: R[] }
  /** From a package or the standard library (`from` = its specifier), or a global the workspace does not declare. */
  | { kind: 'external'; from?: string }
  | { kind: 'unresolved' };

interface Bound {
  spec: string;
  imported: string;
}

const RE_EXPORT_DEPTH = 4;

export class Resolver<R extends DeclRefLike> {
  private goIndex: { module: string | null; dirs: Map<string, string[]> } | undefined;
  private readonly bound = new Map<string, { names: Map<string, Bound>; stars: string[] }>();

  /** Cheap to make (a refresh makes one): the Go packages are gathered at the first Go question. */
  constructor(private readonly root: string, private readonly facts: (path: string) => FileFacts | undefined, private readonly paths: PathSet, private readonly named: (name: string) => R[]) {}

  private get goModule(): string | null {
    return this.go().module;
  }

  private get goDirs(): Map<string, string[]> {
    return this.go().dirs;
  }

  private go(): { module: string | null; dirs: Map<string, string[]> } {
    if (this.goIndex !== undefined) return this.goIndex;
    const dirs = new Map<string, string[]>();
    for (const p of this.paths.keys()) {
      if (!p.endsWith('.go')) continue;
      const dir = posix.dirname(p);
      const list = dirs.get(dir);
      if (list) list.push(p);
      else dirs.set(dir, [p]);
    }
    return (this.goIndex = { module: dirs.size > 0 ? goModuleOf(this.root) : null, dirs });
  }

  resolve(path: string, call: CallSite): Resolution<R> {
    const f = this.facts(path);
    if (f === undefined) return { kind: 'unresolved' };
    const b = this.bindings(path, f);
    if (call.recv !== undefined) {
      // `this.m()` / `self.m()` inside a class: a method of that class (inherited ones stay unresolved)
      if (call.recv === 'this' || call.recv === 'self') return this.ownMethod(path, f, call);
      const typed = this.typedMethod(path, f, call, call.recv);
      if (typed !== undefined) return typed;
      let q = call.recv === '' ? undefined : b.names.get(call.recv);
      // Python `import os` + `os.path.join()`: the bound prefix, then the rest as submodules
      if (q === undefined && f.lang === 'python' && call.recv.includes('.')) {
        const [head = '', ...rest] = call.recv.split('.');
        const top = b.names.get(head);
        if (top?.imported === '*') q = { spec: [top.spec, ...rest].join('.'), imported: '*' };
      }
      if (q === undefined) return { kind: 'unresolved' };
      if (q.imported === '*') return this.inModule(path, f, q.spec, call.callee, true);
      // Python `from pkg import util` + `util.f()`: util may be a submodule
      if (f.lang === 'python') {
        const sub = this.inModule(path, f, q.spec.endsWith('.') ? q.spec + q.imported : `${q.spec}.${q.imported}`, call.callee, false);
        if (sub.kind === 'resolved') return sub;
      }
      return { kind: 'unresolved' };
    }
    const local = this.named(call.callee).filter((r) => r.path === path && r.decl.kind !== 'method');
    if (local.length > 0) return { kind: 'resolved', targets: local };
    if (f.lang === 'go') {
      const pkg = this.goDirs.get(posix.dirname(path)) ?? [];
      const same = this.named(call.callee).filter((r) => r.decl.parent === -1 && r.decl.kind !== 'method' && pkg.includes(r.path));
      if (same.length > 0) return { kind: 'resolved', targets: same };
    }
    const imp = b.names.get(call.callee);
    if (imp !== undefined) return this.inModule(path, f, imp.spec, imp.imported === 'default' || imp.imported === '*' ? call.callee : imp.imported, true);
    for (const spec of b.stars) {
      const r = this.inModule(path, f, spec, call.callee, false);
      if (r.kind === 'resolved') return r;
    }
    // not declared here nor imported: a global or builtin, unless the workspace declares the name somewhere
    return this.named(call.callee).length > 0 || b.stars.length > 0 ? { kind: 'unresolved' } : { kind: 'external' };
  }

  private ownMethod(path: string, f: FileFacts, call: CallSite): Resolution<R> {
    let cls = call.caller;
    while (cls >= 0 && f.decls[cls]?.kind !== 'class') cls = f.decls[cls]?.parent ?? -1;
    if (cls < 0) return { kind: 'unresolved' };
    const own = this.named(call.callee).filter((r) => r.path === path && r.decl.parent === cls);
    return own.length > 0 ? { kind: 'resolved', targets: own } : { kind: 'unresolved' };
  }

  /** `x.m()` where the syntax states x's type C (in the call's scope or one around it): C's own method m; undefined
   *  when x has no stated type here or C is no class of the workspace, unresolved when C has no own m (inherited). */
  private typedMethod(path: string, f: FileFacts, call: CallSite, recv: string): Resolution<R> | undefined {
    if (recv === '' || f.typed.length === 0) return undefined;
    // the innermost scope that states a type for the name; two different types there (two callbacks' parameters of
    // one name, which are no declarations of their own) tell nothing
    let types: string[] = [];
    for (let scope = call.caller; types.length === 0; scope = f.decls[scope]?.parent ?? -1) {
      types = f.typed.filter((t) => t.name === recv && t.scope === scope).map((t) => t.type);
      if (scope < 0) break;
    }
    const type = types[0];
    if (type === undefined || types.some((t) => t !== type)) return undefined;
    const cls = this.resolve(path, { callee: type, line: call.line, caller: call.caller });
    const classes = cls.kind === 'resolved' ? cls.targets.filter((r) => r.decl.kind === 'class' || r.decl.kind === 'struct') : [];
    if (classes.length === 0) return undefined;
    const methods = this.named(call.callee).filter((m) =>
      f.lang === 'go'
        ? m.decl.kind === 'method' && classes.some((c) => posix.dirname(c.path) === posix.dirname(m.path) && goReceiverType(m.decl.signature) === c.decl.name)
        : classes.some((c) => c.path === m.path && m.decl.parent === c.index),
    );
    return methods.length > 0 ? { kind: 'resolved', targets: methods } : { kind: 'unresolved' };
  }

  /** `name` exported by the module `spec` imported from `path`; a package outside the workspace is external. */
  private inModule(path: string, f: FileFacts, spec: string, name: string, externalIfMissing: boolean): Resolution<R> {
    const files = this.moduleFiles(path, f.lang, spec);
    if (files.length === 0) return externalIfMissing && this.isPackage(f.lang, spec) ? { kind: 'external', from: spec } : { kind: 'unresolved' };
    const targets = this.exported(files, name, 0);
    return targets.length > 0 ? { kind: 'resolved', targets } : { kind: 'unresolved' };
  }

  private exported(files: string[], name: string, depth: number): R[] {
    const targets = this.named(name).filter((r) => files.includes(r.path) && r.decl.parent === -1);
    if (targets.length > 0 || depth >= RE_EXPORT_DEPTH) return targets;
    // a barrel file re-exports: follow `export { name } from` / `export * from` / Python `from .m import name`
    const out: R[] = [];
    for (const file of files) {
      const f = this.facts(file);
      if (f === undefined) continue;
      const b = this.bindings(file, f);
      const via = b.names.get(name);
      const specs = via !== undefined && via.imported !== '*' ? [[via.spec, via.imported === 'default' ? name : via.imported] as const] : b.stars.map((s) => [s, name] as const);
      for (const [spec, orig] of specs) out.push(...this.exported(this.moduleFiles(file, f.lang, spec), orig, depth + 1));
    }
    return out;
  }

  private moduleFiles(from: string, lang: string, spec: string): string[] {
    if (lang === 'go') {
      const m = this.goModule;
      if (m === null || !(spec === m || spec.startsWith(`${m}/`))) return [];
      return this.goDirs.get(spec === m ? '.' : spec.slice(m.length + 1)) ?? [];
    }
    // not Go: the module path plays no part (asking for it would gather the Go packages of every indexed path)
    const one = resolveImport({ path: from, lang, imports: [] }, spec, this.paths, null);
    return one === null ? [] : [one];
  }

  /** A specifier that names a package (or the standard library) rather than a workspace file; a path alias such as
   *  `@/x`, `~/x` or `#x` may be the workspace's own: not external. */
  private isPackage(lang: string, spec: string): boolean {
    if (lang === 'python') return !spec.startsWith('.');
    if (lang === 'go') return true;
    return !spec.startsWith('.') && !/^(?:@\/|~\/|#)/.test(spec);
  }

  private bindings(path: string, f: FileFacts): { names: Map<string, Bound>; stars: string[] } {
    let b = this.bound.get(path);
    if (b !== undefined) return b;
    b = { names: new Map(), stars: [] };
    for (const imp of f.imports) {
      for (const [local, imported] of imp.names ?? []) {
        if (local === '*') b.stars.push(imp.spec);
        else b.names.set(local, { spec: imp.spec, imported });
      }
    }
    this.bound.set(path, b);
    return b;
  }
}

/** A Go method's receiver type from its signature: `func (s *Store) Get(…)` → Store. */
function goReceiverType(signature: string): string | undefined {
  return /^func\s*\(\s*(?:[A-Za-z_]\w*\s+)?\*?\s*([A-Za-z_]\w*)/.exec(signature)?.[1];
}
