// A tool result over the cap keeps what its `truncation` tag says and tells the model what was cut and how to get the rest.
import { describe, expect, it } from 'vitest';
import { resultCharsFor, truncateText } from '../../src/actors/tools/truncate.js';

const lines = Array.from({ length: 500 }, (_, i) => `line ${i}: some matching text`).join('\n');

describe('the result cap', () => {
  it('head, tail and head_tail keep their part; the note names the sizes and the narrower calls', () => {
    const max = 2_000;
    const head = truncateText(lines, 'head', max);
    expect(head.startsWith('line 0:')).toBe(true);
    expect(head).not.toContain('line 499:');
    const tail = truncateText(lines, 'tail', max);
    expect(tail.endsWith('line 499: some matching text')).toBe(true);
    expect(tail).not.toContain('line 0:');
    const both = truncateText(lines, 'head_tail', max);
    expect(both.startsWith('line 0:') && both.endsWith('line 499: some matching text')).toBe(true);
    for (const t of [head, tail, both]) {
      expect(t).toContain(`${lines.length - max} of ${lines.length} characters cut here to fit the model's context window`);
      expect(t).toMatch(/narrower grep pattern or path, read_file with start_line and end_line/);
      expect(t.length).toBeLessThan(max + 400);
    }
    expect(truncateText(lines, 'none', max)).toBe(lines);
    expect(truncateText('short', 'head', max)).toBe('short');
  });

  it('a small window caps a result to a quarter of it (at ~3 chars a token); a large or unknown one keeps the default', () => {
    expect(resultCharsFor(8192)).toBe(6_144);
    expect(resultCharsFor(200_000)).toBe(40_000);
    expect(resultCharsFor(undefined)).toBe(40_000);
    expect(resultCharsFor(1024)).toBe(2_000); // the floor
  });
});
