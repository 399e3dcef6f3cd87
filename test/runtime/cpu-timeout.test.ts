// Issue 22: a CPU job past its timeout is stopped with its pool thread (piscina terminates a running task's worker),
// so a runaway job never holds the process's one shared pool thread; the token count asks for that timeout.
import { afterEach, describe, expect, it } from 'vitest';
import { CpuPools } from '../../src/runtime/cpu-pools.js';
import { DEFAULT_RPC_TIMEOUT_MS } from '../../src/runtime/rpc.js';
import type { CpuJob, CpuService } from '../../src/runtime/cpu-service.js';
import { poolBackend, TOKEN_COUNT_TIMEOUT_MS } from '../../src/actors/llm/tokens.js';

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

  it('token counts run with a timeout below the RPC timeout (the pool stops a count before its caller gives up)', async () => {
    const jobs: CpuJob[] = [];
    const fake: CpuService = { run: (job) => (jobs.push(job), Promise.resolve([1])) };
    await poolBackend(fake).count('cl100k_base', ['x']);
    expect(jobs[0]?.timeoutMs).toBe(TOKEN_COUNT_TIMEOUT_MS);
    expect(TOKEN_COUNT_TIMEOUT_MS).toBeLessThan(DEFAULT_RPC_TIMEOUT_MS);
  });
});
