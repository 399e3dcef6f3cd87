// What the parse of one file yields: the plain data the index keeps, caches and answers from.
import type { LangId } from './queries.js';

export type DeclKind = 'function' | 'method' | 'class' | 'interface' | 'type' | 'enum' | 'struct';

export interface Decl {
  name: string;
  kind: DeclKind;
  /** 1-based, inclusive. */
  line: number;
  endLine: number;
  /** The declaration's head (up to its body), whitespace collapsed. */
  signature: string;
  /** Index of the enclosing declaration in the same file (a method's class), -1 at top level. */
  parent: number;
}

export interface CallSite {
  /** The called name as the parse sees it: `f` for `f()`, `m` for `x.m()` and `new m()`. */
  callee: string;
  /** A member call's object when it is a plain (dotted) name: `x` for `x.m()`, `os.path` for `os.path.join()`; ''
   *  for any other object (`this`, a call); absent for a bare call `f()` or `new C()`. */
  recv?: string;
  line: number;
  /** Index of the innermost enclosing declaration, -1 = the file's top level. */
  caller: number;
}

export interface ImportRef {
  /** The module specifier as written (`./a.js`, `os`, `fmt`). */
  spec: string;
  line: number;
  /** The names it binds in the file: [local, imported], imported '*' for a whole module (`* as ns`, Python
   *  `import a.b`, a Go package), 'default' for a default import; ['*', '*'] re-exports everything (`export *`). */
  names?: [local: string, imported: string][];
}

/** A name whose type the syntax states: `const x = new C()`, `x: C` (a parameter, a variable), a field `f: C` /
 *  `f = new C()` (named `this.f`; Python `self.f = C()`), a Go receiver or parameter `s *Store`, `s := &Store{}`. */
export interface TypedName {
  /** As a call's receiver names it: `x`, `this.f`, `self.f`. */
  name: string;
  /** The type's name as written (a plain identifier; generics, unions and qualified names are not kept). */
  type: string;
  /** The declaration it is visible in (a field: its class), -1 = the file's top level. */
  scope: number;
}

export interface FileFacts {
  lang: LangId;
  decls: Decl[];
  calls: CallSite[];
  imports: ImportRef[];
  typed: TypedName[];
  /** The parse has an ERROR node somewhere: facts are what the parser could recover. */
  partial: boolean;
}

/** Bumped when what extraction yields changes: cached facts of another version are parsed again. */
export const FACTS_VERSION = 3;
