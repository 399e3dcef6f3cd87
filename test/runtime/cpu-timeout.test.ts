// Issue 22: a CPU job past its timeout is stopped with its pool thread (piscina terminates a running task's worker),
// so a runaway job never holds the process's one shared pool thread; the token count asks for that timeout.
import { afterEach, describe, expect, it } from 'vitest';
import { CpuPools } from '../../src/runtime/cpu-pools.js';
import { DEFAULT_RPC_TIMEOUT_MS } from '../../src/runtime/rpc.js';
import type { CpuJob, CpuService } from '../../src/runtime/cpu-service.js';
import { poolBackend, TOKEN_COUNT_TIMEOUT_MS, UNTIMED_COUNT_CHARS } from '../../src/actors/llm/tokens.js';

const FIXTURE = 'src/runtime/testing/fixture-cpu-job.js';
let pools: CpuPools | undefined;
afterEach(async () => {
  await pools?.close();
  pools = undefined;
});

describe('cpu job timeouts', () => {
  it('a job past its timeoutMs rejects with JOB_TIMEOUT and its thread is stopped: the next job runs on a new thread', async () => {
    pools = new CpuPools();
    const cpu = pools.service;
    const before = (await cpu.run({ module: FIXTURE, name: 'threadId' }, {})) as number;
    await expect(cpu.run({ module: FIXTURE, name: 'spinForever', timeoutMs: 100 }, {})).rejects.toMatchObject({ code: 'JOB_TIMEOUT' });
    // one pool thread: had the spinning job kept it, this would never run
    const after = (await cpu.run({ module: FIXTURE, name: 'threadId' }, {})) as number;
    expect(after).not.toBe(before);
    await expect(cpu.run({ module: FIXTURE, name: 'threadId', timeoutMs: -1 }, {})).rejects.toMatchObject({ code: 'BAD_JOB' });
  });

  it('token counts past UNTIMED_COUNT_CHARS run with a timeout below the RPC timeout (the pool stops a count before its caller gives up)', async () => {
    const jobs: CpuJob[] = [];
    const fake: CpuService = { run: (job) => (jobs.push(job), Promise.resolve([1])) };
    const half = 'y'.repeat(UNTIMED_COUNT_CHARS / 2);
    await poolBackend(fake).count('cl100k_base', [half, half, 'x']);
    expect(jobs[0]?.timeoutMs).toBe(TOKEN_COUNT_TIMEOUT_MS);
    expect(TOKEN_COUNT_TIMEOUT_MS).toBeLessThan(DEFAULT_RPC_TIMEOUT_MS);
    // small ones go without (linear: they cannot come near it) and skip the abort signal's cost
    await poolBackend(fake).count('cl100k_base', [half, half]);
    expect(jobs[1]?.timeoutMs).toBeUndefined();
  });

  it('a count of UNTIMED_COUNT_CHARS pathological characters ends far inside the timeout on the real pool', async () => {
    pools = new CpuPools();
    const text = Array.from({ length: UNTIMED_COUNT_CHARS }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20000))).join('');
    const t0 = performance.now();
    const [n] = await poolBackend(pools.service).count('cl100k_base', [text]);
    expect(n).toBeGreaterThan(UNTIMED_COUNT_CHARS / 4);
    expect(performance.now() - t0).toBeLessThan(TOKEN_COUNT_TIMEOUT_MS / 4);
  });
});
