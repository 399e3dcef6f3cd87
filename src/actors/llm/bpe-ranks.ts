// The BPE encoder the token job counts with: js-tiktoken's ranks data, keyed by each token's bytes as a binary (latin1)
// string. js-tiktoken's own constructor turns the same data into an object, then a Map keyed by the bytes joined with
// commas plus a Map of byte arrays for decoding: ~340 ms of CPU and ~100 k arrays for cl100k, on the CPU pool thread
// while the first delegations stream (issue 29: the marker agent waited for a core behind it). Here `atob` decodes
// each token straight to that binary string (~35 ms) and a piece's merges slice a string. Same token ids as
// `Tiktoken.encode(text, [], [])` (special tokens are plain text) — test/llm/bpe-ranks.test.ts compares them.

/** js-tiktoken's rank files (`js-tiktoken/ranks/*`): lines of `<name> <first rank> <base64 token>…`. */
export interface RanksData {
  pat_str: string;
  bpe_ranks: string;
}

export class BinaryBpe {
  private readonly ranks = new Map<string, number>();
  private readonly pattern: RegExp;

  constructor(data: RanksData) {
    this.pattern = new RegExp(data.pat_str, 'gu');
    for (const line of data.bpe_ranks.split('\n')) {
      if (line === '') continue;
      const parts = line.split(' ');
      const first = Number.parseInt(parts[1] ?? '', 10);
      // a token named twice keeps its later rank, as js-tiktoken's object of ranks does
      for (let i = 2; i < parts.length; i++) this.ranks.set(atob(parts[i] as string), first + i - 2);
    }
  }

  /** Token ids of `text` with every special token read as plain text (js-tiktoken's `encode(text, [], [])`). */
  encode(text: string): number[] {
    const out: number[] = [];
    for (const m of text.matchAll(this.pattern)) {
      const piece = binary(m[0]);
      const whole = this.ranks.get(piece);
      if (whole !== undefined) out.push(whole);
      else this.merge(piece, out);
    }
    return out;
  }

  /** js-tiktoken's bytePairEncode: merge the adjacent pair of lowest rank (the first of equals) until none is a token. */
  private merge(piece: string, out: number[]): void {
    if (piece.length === 1) {
      out.push(this.ranks.get(piece) as number);
      return;
    }
    const starts = Array.from({ length: piece.length }, (_, i) => i);
    const end = (i: number): number => starts[i] ?? piece.length;
    while (starts.length > 1) {
      let min = -1;
      let at = -1;
      for (let i = 0; i < starts.length - 1; i++) {
        const rank = this.ranks.get(piece.slice(end(i), end(i + 2)));
        if (rank !== undefined && (at < 0 || rank < min)) {
          min = rank;
          at = i;
        }
      }
      if (at < 0) break;
      starts.splice(at + 1, 1);
    }
    for (let i = 0; i < starts.length; i++) {
      const rank = this.ranks.get(piece.slice(end(i), end(i + 1)));
      if (rank !== undefined) out.push(rank);
    }
  }
}

/** A string's UTF-8 bytes as one char each (lone surrogates as U+FFFD, as TextEncoder writes them). */
function binary(s: string): string {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return Buffer.from(s, 'utf8').toString('latin1');
  return s;
}
