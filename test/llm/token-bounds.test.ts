// Issue 22: token counting is linear on long unbroken runs. js-tiktoken merges each pre-tokenizer piece in time
// cubic in its bytes (a 16 K run of one character took 15.5 s, 32 K 75 s): no piece over WHOLE_PIECE_BYTES reaches
// its merge any more, and counts stay exact without long pieces and within 2 % with them.
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, it } from 'vitest';
import { countBounded, WHOLE_PIECE_BYTES } from '../../src/actors/llm/token-job.js';

const encoders = [['cl100k_base', cl100k], ['o200k_base', o200k]] as const;
const loaded = new Map(encoders.map(([name, ranks]) => [name, { enc: new Tiktoken(ranks), pieces: new RegExp(ranks.pat_str, 'gu') }]));

/** The encoder with every text it is asked to encode recorded. */
function spied(name: 'cl100k_base' | 'o200k_base'): { l: { enc: Tiktoken; pieces: RegExp }; asked: string[] } {
  const l = loaded.get(name);
  if (!l) throw new Error(name);
  const asked: string[] = [];
  const enc = Object.create(l.enc) as Tiktoken;
  enc.encode = (text: string, a?: string[] | 'all', d?: string[] | 'all') => (asked.push(text), l.enc.encode(text, a, d));
  return { l: { enc, pieces: l.pieces }, asked };
}

const longestPiece = (l: { pieces: RegExp }, texts: string[]): number => Math.max(0, ...texts.flatMap((t) => [...t.matchAll(l.pieces)].map((m) => Buffer.byteLength(m[0]))));
const CJK = Array.from({ length: 4000 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 20000))).join('');
const RUNS: Record<string, string> = {
  'one character': 'a'.repeat(32_000),
  spaces: `${' '.repeat(32_000)}x`,
  punctuation: '.'.repeat(32_000),
  'CJK without a break': CJK.repeat(4),
  'hex without digits': Array.from({ length: 32_000 }, (_, i) => 'abcdef'[(i * 7) % 6]).join(''),
};

describe('bounded token counting', () => {
  for (const [name] of encoders) {
    it(`${name}: no piece over ${WHOLE_PIECE_BYTES} bytes reaches the merge, whatever the run`, () => {
      for (const [what, text] of Object.entries(RUNS)) {
        const { l, asked } = spied(name);
        expect(countBounded(l, text), what).toBeGreaterThan(0);
        expect(longestPiece(l, asked), what).toBeLessThanOrEqual(WHOLE_PIECE_BYTES);
      }
    }, 60_000);

    it(`${name}: exact without long pieces, within 2 % on long runs, never under on periodic ones`, () => {
      const l = loaded.get(name);
      if (!l) throw new Error(name);
      const exact = (t: string): number => l.enc.encode(t, [], []).length;
      const prose = 'The quick brown fox jumps over the lazy dog; `getElementsByClassNameAndSomethingElse(x) + 42;` 漢字 é supercalifragilisticexpialidocious. '.repeat(100);
      expect(countBounded(l, prose)).toBe(exact(prose));
      let x = 7;
      const letters = Array.from({ length: 1500 }, () => 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'[(x = (x * 1103515245 + 12345) & 0x7fffffff) % 52]).join('');
      for (const t of ['a'.repeat(1500), CJK.slice(0, 600), letters]) {
        const want = exact(t);
        expect(Math.abs(countBounded(l, t) - want) / want, t.slice(0, 20)).toBeLessThanOrEqual(0.02);
      }
      // a cut can only keep a merge from spanning it: the threshold errs on the side of compressing early
      for (const t of ['abcdef'.repeat(250), `${'-'.repeat(900)}\n`]) {
        expect(countBounded(l, t), t.slice(0, 20)).toBeGreaterThanOrEqual(exact(t));
        expect(countBounded(l, t), t.slice(0, 20)).toBeLessThanOrEqual(3 * exact(t));
      }
    }, 60_000);
  }
});
