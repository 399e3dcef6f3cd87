// The bash grammar (tree-sitter-bash on web-tree-sitter, both WASM) for run_bash's word check. Loaded on the first
// run_bash check of a thread, never at worker boot: ~25 ms of module, runtime and grammar load plus a first parse
// that compiles the grammar's hot code (bench `tools`: `bash_parser_load_ms`). Later parses take tens of µs.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Parser as TsParser, TreeCursor } from 'web-tree-sitter';
import { packageRoot } from '../../runtime/dist-paths.js';

/** A syntax node as plain data: the WASM node's getters cost 1–25 µs each (`parent` walks down from the root,
 *  `childrenForFieldName` scans), so the tree is copied out once with a cursor and walked in JS. */
export class ShellNode {
  readonly children: ShellNode[] = [];
  constructor(
    readonly type: string,
    readonly text: string,
    readonly isNamed: boolean,
    readonly startIndex: number,
    readonly endIndex: number,
    /** The grammar's field name of this node in its parent (`name`, `argument`, `value`, …). */
    readonly field: string | null,
    readonly parent: ShellNode | null,
  ) {}
  get namedChildren(): ShellNode[] {
    return this.children.filter((c) => c.isNamed);
  }
  get firstNamedChild(): ShellNode | null {
    return this.children.find((c) => c.isNamed) ?? null;
  }
  get firstChild(): ShellNode | null {
    return this.children[0] ?? null;
  }
  childForFieldName(field: string): ShellNode | null {
    return this.children.find((c) => c.field === field) ?? null;
  }
  childrenForFieldName(field: string): ShellNode[] {
    return this.children.filter((c) => c.field === field);
  }
}

export interface ShellTree {
  root: ShellNode;
  /** The line does not parse as bash somewhere (an ERROR or MISSING node). */
  hasError: boolean;
}

let parser: Promise<TsParser> | undefined;

/** Where an installed package's file is (hoisted or not), resolved from yagent's own package.json. */
function packageFile(spec: string): string {
  return createRequire(join(packageRoot(), 'package.json')).resolve(spec);
}

async function load(): Promise<TsParser> {
  // a literal specifier: the thread bundles leave it out and require it on this first use (bundle-entries.mjs)
  const { Parser, Language } = await import('web-tree-sitter');
  const runtimeWasm = packageFile('web-tree-sitter/web-tree-sitter.wasm');
  await Parser.init({ locateFile: () => runtimeWasm });
  const bash = await Language.load(packageFile('tree-sitter-bash/tree-sitter-bash.wasm'));
  const p = new Parser();
  p.setLanguage(bash);
  return p;
}

/** The thread's one bash parser (loaded once; a failed load is the caller's error and the next call loads again). */
export async function bashParser(): Promise<TsParser> {
  parser ??= load();
  try {
    return await parser;
  } catch (e) {
    parser = undefined;
    throw e;
  }
}

/** Copies the cursor's node and everything below it. */
function copy(c: TreeCursor, parent: ShellNode | null): ShellNode {
  const n = new ShellNode(c.nodeType, c.nodeText, c.nodeIsNamed, c.startIndex, c.endIndex, c.currentFieldName, parent);
  if (c.gotoFirstChild()) {
    do n.children.push(copy(c, n));
    while (c.gotoNextSibling());
    c.gotoParent();
  }
  return n;
}

/** The syntax tree of a command line as plain data (the WASM tree is freed before this returns). */
export async function parseBash(text: string): Promise<ShellTree> {
  const tree = (await bashParser()).parse(text);
  if (tree === null) throw new Error('the bash parser returned no tree');
  try {
    const cursor = tree.walk();
    try {
      return { root: copy(cursor, null), hasError: tree.rootNode.hasError };
    } finally {
      cursor.delete();
    }
  } finally {
    tree.delete();
  }
}
