import { describe, it, expect } from 'vitest';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error plain ESM script without types
import { checkTree } from '../scripts/guards.mjs';

type Violation = { rule: string; file: string; msg: string };
const check = checkTree as (root: string) => Violation[];

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'yagent-guards-'));
  for (const [p, body] of Object.entries(files)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), body);
  }
  return root;
}

function rulesFired(files: Record<string, string>): string[] {
  const root = tree(files);
  try {
    return check(root).map((v) => v.rule);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

describe('guards', () => {
  it('the repository itself passes every guard', () => {
    const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
    expect(check(root)).toEqual([]);
  });
  it('file-size ratchet fires over 400 lines', () => {
    expect(rulesFired({ 'src/actors/big.ts': 'x\n'.repeat(401) })).toContain('file-size');
  });
  it('no worker outside the runtime', () => {
    expect(rulesFired({ 'src/actors/a.ts': "import { Worker } from 'node:worker_threads';\n" })).toContain('no-worker-outside-runtime');
    expect(rulesFired({ 'src/runtime/a.ts': "import { Worker } from 'node:worker_threads';\n" })).not.toContain('no-worker-outside-runtime');
  });
  it('no setInterval outside the runtime', () => {
    expect(rulesFired({ 'src/store/a.ts': 'setInterval(() => {}, 5);\n' })).toContain('no-background-outside-runtime');
  });
  it('one atomic-write function', () => {
    expect(rulesFired({ 'src/store/notes.ts': "await fs.rename(tmp, dst);\n" })).toContain('one-atomic-write');
    expect(rulesFired({ 'src/store/atomic-write.ts': "await fs.rename(tmp, dst);\n" })).not.toContain('one-atomic-write');
  });
  it('import direction: runtime may not import actors, protocol only zod', () => {
    expect(rulesFired({ 'src/runtime/a.ts': "import { x } from '../actors/b.js';\n" })).toContain('import-direction');
    expect(rulesFired({ 'src/runtime/protocol/a.ts': "import { x } from 'node:fs';\n" })).toContain('import-direction');
    expect(rulesFired({ 'src/store/a.ts': "import { x } from '../actors/b.js';\n" })).toContain('import-direction');
    expect(rulesFired({ 'src/actors/a.ts': "import { x } from '../store/rollout-writer.js';\n" })).toContain('import-direction');
    expect(rulesFired({ 'src/actors/a.ts': "import { x } from '../runtime/b.js';\n" })).not.toContain('import-direction');
  });
  it('test hygiene: .only, bare .skip, no expect', () => {
    expect(rulesFired({ 'test/a.test.ts': "it.only('x', () => { expect(1).toBe(1); });\n" })).toContain('test-hygiene');
    expect(rulesFired({ 'test/a.test.ts': "it.skip('x', () => { expect(1).toBe(1); });\n" })).toContain('test-hygiene');
    expect(rulesFired({ 'test/a.test.ts': "it('x', () => {});\n" })).toContain('test-hygiene');
  });
});
