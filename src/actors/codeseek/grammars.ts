// The tree-sitter runtime and the grammars (WASM, prebuilt npm packages), loaded once per thread on first use.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as WebTreeSitter from 'web-tree-sitter';
import type { Language, Parser, Query } from 'web-tree-sitter';
import { packageRoot } from '../../runtime/dist-paths.js';
import { GRAMMAR_FILES, QUERIES, type LangId } from './queries.js';

export interface Grammar {
  parser: Parser;
  query: Query;
  language: Language;
}

type TreeSitter = typeof WebTreeSitter;
let runtime: Promise<TreeSitter> | undefined;
const grammars = new Map<LangId, Promise<Grammar>>();
/** The grammars loaded so far: a parse then needs no promise (one per file was a tenth of a small file's cost). */
const loaded = new Map<LangId, Grammar>();

function packageFile(spec: string): string {
  return createRequire(join(packageRoot(), 'package.json')).resolve(spec);
}

async function loadRuntime(): Promise<TreeSitter> {
  const ts = await import('web-tree-sitter');
  const wasm = packageFile('web-tree-sitter/web-tree-sitter.wasm');
  await ts.Parser.init({ locateFile: () => wasm });
  return ts;
}

async function loadGrammar(lang: LangId): Promise<Grammar> {
  runtime ??= loadRuntime();
  let ts: TreeSitter;
  try {
    ts = await runtime;
  } catch (e) {
    runtime = undefined; // the next call tries again
    throw e;
  }
  const language = await ts.Language.load(packageFile(GRAMMAR_FILES[lang]));
  const parser = new ts.Parser();
  parser.setLanguage(language);
  return { parser, query: new ts.Query(language, QUERIES[lang]), language };
}

/** The thread's parser and query for `lang` (a failed load is the caller's error; the next call loads again). */
export async function grammar(lang: LangId): Promise<Grammar> {
  let g = grammars.get(lang);
  if (!g) grammars.set(lang, (g = loadGrammar(lang).then((done) => {
    loaded.set(lang, done);
    return done;
  })));
  try {
    return await g;
  } catch (e) {
    grammars.delete(lang);
    throw e;
  }
}

/** The thread's grammar for `lang` when it is loaded already (undefined: `grammar` loads it). */
export function loadedGrammar(lang: LangId): Grammar | undefined {
  return loaded.get(lang);
}
