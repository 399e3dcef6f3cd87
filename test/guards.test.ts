import { describe, it, expect } from 'vitest';
import { cpSync, mkdtempSync, mkdirSync, readFileSync, writeFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
// @ts-expect-error plain ESM script without types
import { checkTree } from '../scripts/guards.mjs';

type Violation = { rule: string; file: string; msg: string };
const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
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
    expect(check(REPO)).toEqual([]);
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
  it('no detached void p.catch() in src/store and src/actors', () => {
    expect(rulesFired({ 'src/actors/a.ts': 'void this.flush().catch(() => undefined);\n' })).toContain('no-detached-promise');
    expect(rulesFired({ 'src/store/a.ts': 'void p.then(ok, fail);\n' })).toContain('no-detached-promise');
    expect(rulesFired({ 'src/runtime/a.ts': 'void p.catch(() => undefined);\n' })).not.toContain('no-detached-promise');
    expect(rulesFired({ 'src/actors/a.ts': "ctx.tasks.go('flush', () => this.flush());\n" })).not.toContain('no-detached-promise');
    expect(rulesFired({ 'src/actors/a.ts': 'const done: Promise<void> = run().catch(report);\n' })).not.toContain('no-detached-promise');
  });
  it('one atomic-write function', () => {
    expect(rulesFired({ 'src/store/notes.ts': "await fs.rename(tmp, dst);\n" })).toContain('one-atomic-write');
    expect(rulesFired({ 'src/runtime/atomic-write.ts': "await fs.rename(tmp, dst);\n" })).not.toContain('one-atomic-write');
    expect(rulesFired({ 'src/store/atomic-write.ts': "await fs.rename(tmp, dst);\n" })).toContain('one-atomic-write');
    expect(rulesFired({ 'src/runtime/config/persist.ts': "await rename(tmp, path);\n" })).toContain('one-atomic-write');
  });
  it('import direction: runtime may not import actors, protocol only zod', () => {
    expect(rulesFired({ 'src/runtime/a.ts': "import { x } from '../actors/b.js';\n" })).toContain('import-direction');
    expect(rulesFired({ 'src/runtime/protocol/a.ts': "import { x } from 'node:fs';\n" })).toContain('import-direction');
    expect(rulesFired({ 'src/store/a.ts': "import { x } from '../actors/b.js';\n" })).toContain('import-direction');
    expect(rulesFired({ 'src/actors/a.ts': "import { x } from '../store/rollout-writer.js';\n" })).toContain('import-direction');
    expect(rulesFired({ 'src/actors/a.ts': "import { x } from '../runtime/b.js';\n" })).not.toContain('import-direction');
  });
  it('no-fake-import: production code under src never imports a fake/ or testing/ module', () => {
    expect(rulesFired({ 'src/actors/llm/engines/common.ts': "import { AGENT_HEADER } from '../fake/script.js';\n" })).toContain('no-fake-import');
    expect(rulesFired({ 'src/runtime/a.ts': "export { f } from './testing/fixture-actor.js';\n" })).toContain('no-fake-import');
    expect(rulesFired({ 'src/actors/llm/fake/server.ts': "import { AGENT_HEADER } from '../engines/common.js';\n" })).not.toContain('no-fake-import');
    expect(rulesFired({ 'src/actors/llm/fake/server.ts': "import type { FakeStep } from './script.js';\n" })).not.toContain('no-fake-import');
    expect(rulesFired({ 'bin/demo/script.ts': "import type { FakeStep } from '../../src/actors/llm/fake/script.js';\n" })).not.toContain('no-fake-import');
  });
  it('no-client-in-store: store internals never import the store\'s client modules', () => {
    expect(rulesFired({ 'src/store/blackboard/notes.ts': "import { renderHandoff } from '../client-blackboard.js';\n" })).toContain('no-client-in-store');
    expect(rulesFired({ 'src/store/service.ts': "import { connectStore } from './client.js';\n" })).toContain('no-client-in-store');
    expect(rulesFired({ 'src/store/client.ts': "export { renderHandoff } from './client-blackboard.js';\n" })).not.toContain('no-client-in-store');
    expect(rulesFired({ 'src/store/service.ts': "import { renderHandoff } from './blackboard/handoff-text.js';\n" })).not.toContain('no-client-in-store');
    expect(rulesFired({ 'src/actors/a.ts': "import { connectStore } from '../store/client.js';\n" })).not.toContain('no-client-in-store');
  });
  it('test hygiene: .only, bare .skip, no expect', () => {
    expect(rulesFired({ 'test/a.test.ts': "it.only('x', () => { expect(1).toBe(1); });\n" })).toContain('test-hygiene');
    expect(rulesFired({ 'test/a.test.ts': "it.skip('x', () => { expect(1).toBe(1); });\n" })).toContain('test-hygiene');
    expect(rulesFired({ 'test/a.test.ts': "it('x', () => {});\n" })).toContain('test-hygiene');
  });
});

/** Fixtures linted with the repository's own eslint.config.js (rules are matched by path, so each sits where it would live). */
const DETACHED_FIXTURES: Record<string, string> = {
  'src/actors/void-promise.ts': 'declare const p: Promise<void>;\nexport function f(): void {\n  void p;\n}\n',
  'src/actors/void-catch.ts': 'declare const p: Promise<void>;\nexport function f(): void {\n  void p.catch(() => undefined);\n}\n',
  'src/store/call-catch.ts': 'declare function write(): Promise<void>;\nexport function f(): void {\n  write().catch(() => undefined);\n}\n',
  'src/actors/named-task.ts':
    "import type { TaskGroup } from '../runtime/actor.js';\nexport function f(tasks: TaskGroup): void {\n  tasks.go('flush', async () => undefined);\n}\n",
  'src/runtime/void-promise.ts': 'declare const p: Promise<void>;\nexport function f(): void {\n  void p;\n}\n',
};

/** A throwaway tree with the repo's lint config, tsconfig (narrowed to the fixtures) and runtime contracts. */
async function lintDetached(): Promise<Record<string, string[]>> {
  const root = mkdtempSync(join(tmpdir(), 'yagent-lint-'));
  try {
    cpSync(join(REPO, 'eslint.config.js'), join(root, 'eslint.config.js'));
    cpSync(join(REPO, 'src/runtime/actor.ts'), join(root, 'src/runtime/actor.ts'));
    cpSync(join(REPO, 'src/runtime/protocol'), join(root, 'src/runtime/protocol'), { recursive: true });
    symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'), 'dir');
    const { compilerOptions } = JSON.parse(readFileSync(join(REPO, 'tsconfig.json'), 'utf8')) as { compilerOptions: unknown };
    writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: Object.keys(DETACHED_FIXTURES) }));
    for (const [p, body] of Object.entries(DETACHED_FIXTURES)) {
      mkdirSync(dirname(join(root, p)), { recursive: true });
      writeFileSync(join(root, p), body);
    }
    // under CI=true typescript-estree switches to single-run mode, which resolves `allowForKnownSafeCalls`
    // file paths against process.cwd() (the repo) instead of this fixture tree: pin the mode the repo lint uses
    const singleRun = process.env.TSESTREE_SINGLE_RUN;
    process.env.TSESTREE_SINGLE_RUN = 'false';
    const results = await new ESLint({ cwd: root }).lintFiles(Object.keys(DETACHED_FIXTURES)).finally(() => {
      if (singleRun === undefined) delete process.env.TSESTREE_SINGLE_RUN;
      else process.env.TSESTREE_SINGLE_RUN = singleRun;
    });
    const out: Record<string, string[]> = {};
    for (const r of results) out[r.filePath.slice(root.length + 1)] = r.messages.map((m) => m.ruleId ?? m.message);
    return out;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

describe('lint: no detached promise outside the runtime', () => {
  it('void p, void p.catch() and call().catch() fail in src/actors and src/store; ctx.tasks.go and src/runtime pass', async () => {
    const fired = await lintDetached();
    expect(fired['src/actors/void-promise.ts']).toContain('@typescript-eslint/no-floating-promises');
    expect(fired['src/actors/void-catch.ts']).toContain('no-restricted-syntax');
    expect(fired['src/store/call-catch.ts']).toContain('no-restricted-syntax');
    expect(fired['src/actors/named-task.ts'], JSON.stringify(fired)).toEqual([]);
    expect(fired['src/runtime/void-promise.ts'], JSON.stringify(fired)).toEqual([]);
  });
});
