// The token job's encoder (bpe-ranks.ts) against js-tiktoken's own on the same ranks: the same token ids for every
// text, so counts did not change when the job stopped building js-tiktoken's maps (issue 29: ~340 ms of CPU on the pool
// thread while the first delegations streamed, now ~35).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, it } from 'vitest';
import { BinaryBpe } from '../../src/actors/llm/bpe-ranks.js';
import { count, countBounded } from '../../src/actors/llm/token-job.js';

const here = join(import.meta.dirname, '../../src/actors/llm');
const sources = readdirSync(here)
  .filter((f) => f.endsWith('.ts'))
  .slice(0, 12)
  .map((f) => readFileSync(join(here, f), 'utf8'));

const TEXTS = [
  '',
  'a',
  'hello world',
  'The quick brown fox jumps over the lazy dog; `getElementsByClassName(x) + 42;` supercalifragilisticexpialidocious.',
  '漢字かな交じり文 — é, ß, ø, Ω, 𝔘𝔫𝔦𝔠𝔬𝔡𝔢, emoji 👩‍👩‍👧‍👦 🇫🇷 and ‮bidi‬',
  'lone surrogates: \ud800 and \udfff, a pair \ud83d\ude00',
  'special tokens are text here: <|endoftext|> <|fim_prefix|> <|im_start|>user',
  '  \t\n\r\n   \n\n\n    indented\r\n\tcode\u00a0nbsp',
  '1234567890 3.14159 0xDEADBEEF 1e-9 ١٢٣ ½',
  `${'-'.repeat(64)}\n${'='.repeat(63)} ${'ab'.repeat(40)}`,
  ...sources,
];

describe('BinaryBpe', () => {
  for (const [name, ranks] of [['cl100k_base', cl100k], ['o200k_base', o200k]] as const) {
    it(`${name}: the same token ids as js-tiktoken's encode(text, [], [])`, () => {
      const ours = new BinaryBpe(ranks);
      const theirs = new Tiktoken(ranks);
      for (const text of TEXTS) expect(ours.encode(text), text.slice(0, 40)).toEqual(theirs.encode(text, [], []));
    }, 60_000);
  }

  it("the token job counts with it: the same counts as over js-tiktoken's encoder", async () => {
    const theirs = { enc: new Tiktoken(cl100k), pieces: new RegExp(cl100k.pat_str, 'gu') };
    expect(await count({ encoding: 'cl100k_base', texts: TEXTS })).toEqual(TEXTS.map((t) => countBounded(theirs, t)));
  }, 60_000);
});
