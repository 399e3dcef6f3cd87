// The bash grammar (tree-sitter-bash on web-tree-sitter, both WASM) for run_bash's word check. Loaded on the first
// run_bash check of a thread, never at worker boot: ~25 ms of module, runtime and grammar load plus a first parse
// that compiles the grammar's hot code (bench `tools`: `bash_parser_load_ms`). Later parses take tens of µs.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Node, Parser as TsParser, Tree } from 'web-tree-sitter';
import { packageRoot } from '../../runtime/dist-paths.js';

export type { Node as ShellNode, Tree as ShellTree };

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

/** The syntax tree of a command line; the caller deletes it (WASM memory is not collected). */
export async function parseBash(text: string): Promise<Tree> {
  const tree = (await bashParser()).parse(text);
  if (tree === null) throw new Error('the bash parser returned no tree');
  return tree;
}
