// Recovery is a module delegation uses; it reaches delegation only through a type (issue 24 "Structure").
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Relative imports of a source file, type-only ones apart. */
function importsOf(file: string): { values: string[]; types: string[] } {
  const src = readFileSync(file, 'utf8');
  const values: string[] = [];
  const types: string[] = [];
  for (const m of src.matchAll(/^(import|export)(\s+type)?\s[^;]*?from\s+'(\.[^']+)'/gms)) {
    const target = resolve(dirname(file), (m[3] ?? '').replace(/\.js$/, '.ts'));
    (m[2] ? types : values).push(target);
  }
  return { values, types };
}

const AGENTS = resolve('src/actors/agents');

describe('recovery and delegation', () => {
  it('recovery imports nothing from delegation, and its value imports are one-job modules', () => {
    const r = importsOf(`${AGENTS}/recovery.ts`);
    expect([...r.values, ...r.types]).not.toContain(`${AGENTS}/delegation.ts`);
    expect(r.values.sort()).toEqual([`${AGENTS}/ledger-report.ts`, `${AGENTS}/replay-assessment.ts`, `${AGENTS}/workspace-facts.ts`]);
  });

  it('no module that delegation imports imports delegation back', () => {
    const d = importsOf(`${AGENTS}/delegation.ts`);
    const back = [...d.values, ...d.types].filter((f) => f.startsWith(AGENTS) && [...importsOf(f).values, ...importsOf(f).types].includes(`${AGENTS}/delegation.ts`));
    expect(back).toEqual([]);
  });
});
