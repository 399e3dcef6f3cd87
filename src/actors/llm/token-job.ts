// Token counting job for the process's CPU pool (CPU_SERVICE): the encoder's ranks load once per pool thread.
import { BinaryBpe } from './bpe-ranks.js';

export type Encoding = 'o200k_base' | 'cl100k_base';
export const TOKEN_JOB_MODULE = 'src/actors/llm/token-job.js';

/** The encoder and its pre-tokenizer (the pattern that cuts text into the pieces BPE merges). */
interface Loaded {
  /** BinaryBpe, or js-tiktoken's Tiktoken (the tests compare them): special tokens are read as text. */
  enc: { encode(text: string, allowedSpecial: string[], disallowedSpecial: string[]): number[] };
  pieces: RegExp;
}

const encoders = new Map<Encoding, Promise<Loaded>>();

async function load(encoding: Encoding): Promise<Loaded> {
  const ranks = encoding === 'o200k_base' ? (await import('js-tiktoken/ranks/o200k_base')).default : (await import('js-tiktoken/ranks/cl100k_base')).default;
  return { enc: new BinaryBpe(ranks), pieces: new RegExp(ranks.pat_str, 'gu') };
}

function encoder(encoding: Encoding): Promise<Loaded> {
  let e = encoders.get(encoding);
  if (!e) encoders.set(encoding, (e = load(encoding)));
  return e;
}

/** BPE merges a piece in time cubic in its bytes (js-tiktoken's, and bpe-ranks.ts's same algorithm) (a 16 K run of one character took 15.5 s, 32 K 75 s): a
 *  piece over WHOLE_PIECE_BYTES is counted in chunks of at most CHUNK_BYTES, cut at character boundaries. A cut can
 *  add a token where a merge would have spanned it; text without such pieces counts exactly as before. */
export const WHOLE_PIECE_BYTES = 64;
const CHUNK_BYTES = 32;

/** `piece` cut into runs of whole characters of at most CHUNK_BYTES UTF-8 bytes each. */
function chunks(piece: string): string[] {
  const out: string[] = [];
  let start = 0;
  let bytes = 0;
  let i = 0;
  for (const ch of piece) {
    const b = Buffer.byteLength(ch, 'utf8');
    if (bytes + b > CHUNK_BYTES && i > start) {
      out.push(piece.slice(start, i));
      start = i;
      bytes = 0;
    }
    bytes += b;
    i += ch.length;
  }
  if (i > start) out.push(piece.slice(start, i));
  return out;
}

const longPiece = (p: string): boolean => p.length > WHOLE_PIECE_BYTES || (p.length * 3 > WHOLE_PIECE_BYTES && Buffer.byteLength(p, 'utf8') > WHOLE_PIECE_BYTES);

/** Tokens of `text` in time linear in its length: runs of short pieces are encoded together (cut at a piece
 *  boundary, they split as they did in the whole text), each long piece chunk by chunk (equal chunks once). */
export function countBounded({ enc, pieces }: Loaded, text: string): number {
  const encoded = (s: string): number => (s === '' ? 0 : enc.encode(s, [], []).length);
  const chunkCounts = new Map<string, number>();
  let total = 0;
  let from = 0;
  for (const m of text.matchAll(pieces)) {
    if (!longPiece(m[0])) continue;
    total += encoded(text.slice(from, m.index));
    for (const c of chunks(m[0])) {
      let n = chunkCounts.get(c);
      if (n === undefined) chunkCounts.set(c, (n = encoded(c)));
      total += n;
    }
    from = m.index + m[0].length;
  }
  return total + encoded(text.slice(from));
}

/** Token count of each text; special-token strings in user text count as plain text, never throw. */
export async function count(input: { encoding: Encoding; texts: string[] }): Promise<number[]> {
  const loaded = await encoder(input.encoding);
  return input.texts.map((t) => countBounded(loaded, t));
}

/** Loads the encoder ahead of the first count (its ranks take ~35 ms of CPU for cl100k, ~75 for o200k: bpe-ranks.ts). */
export async function warm(input: { encoding: Encoding }): Promise<boolean> {
  await encoder(input.encoding);
  return true;
}
