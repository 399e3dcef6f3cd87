// The index build's second parse thread: a CPU job (the runtime's shared pool, CPU_SERVICE) that parses a batch of
// files and returns their facts in the batch's order. Its grammars load once per pool thread (grammars.ts).
import type { FileFacts } from './facts.js';
import { extractWith } from './extract.js';
import { grammar, loadedGrammar } from './grammars.js';
import type { LangId } from './queries.js';

export interface ParseBatchInput {
  /** [language, source] per file. */
  files: [LangId, string][];
}

/** Facts of each file, in the input's order (the same function the index thread runs: `extractWith`), as JSON: one
 *  string crosses the threads for less CPU than a structured clone of the objects (facts hold only JSON values). */
export async function parseBatch(input: ParseBatchInput): Promise<string> {
  const out: FileFacts[] = [];
  for (const [lang, source] of input.files) out.push(extractWith(loadedGrammar(lang) ?? (await grammar(lang)), lang, source));
  return JSON.stringify(out);
}
