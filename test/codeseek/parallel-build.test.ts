// Issue 28: the index build parses on two threads (the runtime's CPU thread takes batches) and builds the same index
// as one thread; one thread on one core and for a refresh of a few files; a cancelled build leaves no batch running
// and the runtime's shutdown no thread; a crash of the parse thread is recovered (parsed here, reported).
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CodeIndex } from '../../src/actors/codeseek/code-index.js';
import { OFFLOAD_MIN_FILES, PARSE_JOB, type ParseCpu } from '../../src/actors/codeseek/parse-pipeline.js';
import { parseBatch, type ParseBatchInput } from '../../src/actors/codeseek/parse-job.js';
import { CpuPools } from '../../src/runtime/cpu-pools.js';
import type { CpuJob } from '../../src/runtime/cpu-service.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { tempRepo } from './fixtures.js';

const FIXTURE = 'src/runtime/testing/fixture-cpu-job.js';

/** A generated repository over the offload threshold: TS, Python and Go, a few files with the same content. */
function generatedFiles(n: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) {
    const k = i % 10;
    if (k === 7) files[`py/m${i}.py`] = `from .m${i - 10} import f${i - 10}\nclass C${i}:\n    def run(self, x):\n        return f${i - 10}(x) + helper(x)\ndef helper(x):\n    return len(str(x))\n`;
    else if (k === 8) files[`go/m${i}.go`] = `package m\n\ntype T${i} struct{ n int }\n\nfunc (t *T${i}) Run() int { return F${i}(t.n) }\n\nfunc F${i}(x int) int { return helper(x) }\n`;
    else if (k === 9) files[`dup/d${i}.ts`] = 'export function same(x: number): number {\n  return other(x) + 1;\n}\n';
    else files[`src/d${i % 13}/m${i}.ts`] = `import { f${i - 1} } from '../d${(i - 1) % 13}/m${i - 1}.js';\nexport interface S${i} { id: number }\nexport function f${i}(x: number): number {\n  return f${i - 1}(x) + ${i};\n}\nexport class C${i} {\n  private s: S${i} = { id: 1 };\n  run(): number { return f${i}(this.s.id) + helper(${i}); }\n}\nconst helper = (n: number): number => n * 2;\n`;
  }
  return files;
}

const made: string[] = [];
let pools: CpuPools | undefined;
afterEach(async () => {
  await pools?.close();
  pools = undefined;
});
afterAll(() => made.forEach((r) => rmSync(r, { recursive: true, force: true })));

/** Batches go to the second thread from this many files (the production threshold is OFFLOAD_MIN_FILES). */
const MIN = 64;
const FILES = 240;

function repo(n = FILES): string {
  const r = tempRepo(generatedFiles(n));
  made.push(r);
  return r;
}

/** The CPU service with its calls counted (and the ones still running). */
function counted(cpu: ParseCpu, hook?: (call: number) => void): ParseCpu & { calls: number; running: number } {
  const c = {
    calls: 0,
    running: 0,
    run(job: CpuJob, input: unknown): Promise<unknown> {
      c.calls++;
      c.running++;
      hook?.(c.calls);
      return cpu.run(job, input).finally(() => c.running--);
    },
  };
  return c;
}

async function oneThreadImage(root: string): Promise<string> {
  const ix = new CodeIndex(root);
  const r = await ix.refresh();
  expect(r.offloaded).toBeUndefined();
  return JSON.stringify(ix.image());
}

describe('the index build on two threads', () => {
  it('builds the same index bytes as one thread; a refresh of a few files, a small repository and a one-core machine stay on one thread', async () => {
    const root = repo();
    pools = new CpuPools();
    // the parse thread's grammars loaded first: a cold one may answer after this thread parsed everything itself
    await pools.service.run(PARSE_JOB, { files: [['typescript', 'f();']] });
    const cpu = counted(pools.service);
    const ix = new CodeIndex(root, Date.now, { offload: { cpu, threads: 2, minFiles: MIN } });
    const r = await ix.refresh();
    // batches went to the pool thread; how many it answered before this thread parsed them itself depends on the load
    expect(cpu.calls).toBeGreaterThan(0);
    expect(r.offloaded).toBeGreaterThanOrEqual(0);
    expect(r.parsed).toBe(FILES);
    const one = new CodeIndex(root);
    await one.refresh();
    expect(JSON.stringify(ix.image())).toBe(JSON.stringify(one.image()));
    // the answers too: the name maps are built in the same order
    const sites = (x: CodeIndex): string[] => x.callsTo('helper').map((c) => `${c.path}:${c.call.line}`);
    expect(sites(ix)).toEqual(sites(one));
    expect(sites(ix).length).toBeGreaterThan(100);
    const before = cpu.calls;
    writeFileSync(join(root, 'src/d1/m1.ts'), 'export function f1(x: number): number { return x; }\n');
    const again = await ix.refresh();
    expect(again.parsed).toBe(1);
    // (files read within 2 s of their mtime are hashed again, git's racy rule, but never parsed: nothing goes over)
    expect(again.offloaded ?? 0).toBe(0);
    expect(cpu.calls).toBe(before);
    const single = counted(pools.service);
    expect((await new CodeIndex(root, Date.now, { offload: { cpu: single, threads: 1, minFiles: MIN } }).refresh()).offloaded).toBeUndefined();
    // a repository below the production threshold stays on one thread too
    expect(FILES).toBeLessThan(OFFLOAD_MIN_FILES);
    expect((await new CodeIndex(root, Date.now, { offload: { cpu: single, threads: 2 } }).refresh()).offloaded).toBeUndefined();
    expect(single.calls).toBe(0);
  });

  it('answers of the second thread are merged in listing order (answered at once: every batch handed over is taken)', async () => {
    const root = repo();
    // the job's own function, answering before this thread could parse the batch itself
    const cpu = counted({ run: async (_job, input) => parseBatch(input as ParseBatchInput) });
    const ix = new CodeIndex(root, Date.now, { offload: { cpu, threads: 2, minFiles: MIN } });
    const r = await ix.refresh();
    expect(r.offloaded).toBeGreaterThan(FILES / 4);
    expect(JSON.stringify(ix.image())).toBe(await oneThreadImage(root));
  });

  it('a crash of the parse thread is recovered: its batch and the rest are parsed here, the failure reported once', async () => {
    const root = repo();
    pools = new CpuPools();
    const real = pools.service;
    // the first batch ends its pool thread (process.exit in the worker) instead of parsing
    const cpu = counted({ run: (job, input) => (cpu.calls === 1 ? real.run({ module: FIXTURE, name: 'exitThread' }, {}) : real.run(job, input)) });
    const errors: unknown[] = [];
    let reported!: () => void;
    const report = new Promise<void>((r) => (reported = r));
    const ix = new CodeIndex(root, Date.now, { offload: { cpu, threads: 2, minFiles: MIN, onError: (e) => (errors.push(e), reported()) } });
    const r = await ix.refresh();
    await report; // the build does not wait for a batch it parsed itself meanwhile: the report may come after it
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/exit|terminat/i);
    expect(r.parsed).toBe(FILES);
    expect(JSON.stringify(ix.image())).toBe(await oneThreadImage(root));
    // the pool replaced its thread: it parses again
    expect(JSON.parse((await real.run(PARSE_JOB, { files: [['typescript', 'f();']] })) as string)).toHaveLength(1);
  });

  it.skipIf(process.platform !== 'linux')('a cancelled build leaves no batch running, and the runtime\'s shutdown no thread', async () => {
    const root = repo();
    const threads = (): number => readdirSync('/proc/self/task').length;
    const rt = await Runtime.start({ preload: [], spares: 0, dispatcher: { onWarn: () => undefined } });
    const before = threads();
    const ac = new AbortController();
    // cancelled as the second batch is handed over: both are at the parse thread then
    const cpu = counted(rt.cpu, (n) => n === 2 && ac.abort());
    const ix = new CodeIndex(root, Date.now, { offload: { cpu, threads: 2, minFiles: MIN } });
    await expect(ix.refresh({ signal: ac.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(cpu.calls).toBe(2);
    expect(cpu.running).toBe(0);
    expect(ix.status().building).toBe(false);
    expect(threads()).toBeGreaterThan(before); // the parse thread ran
    await rt.shutdown();
    expect(threads()).toBeLessThanOrEqual(before);
  });
});
