// Large rollouts are fingerprinted on the process's CPU pool, small ones in the store's thread; same digest.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Runtime } from '../../src/runtime/runtime.js';
import type { CpuJob } from '../../src/runtime/cpu-service.js';
import type { RolloutRecord } from '../../src/store/api.js';
import { POOL_FINGERPRINT_MIN_BYTES } from '../../src/store/rollout/ledger.js';
import { meta, storeIn, tempRoot } from './helpers.js';

let t: ReturnType<typeof tempRoot>;
let rt: Runtime;
beforeAll(async () => {
  t = tempRoot('yagent-fp-');
  rt = await Runtime.start({ spares: 0 });
});
afterAll(async () => {
  await rt.shutdown();
  t.cleanup();
});

const tool = (i: number, size: number): RolloutRecord => ({ type: 'response_item', ts: i, payload: { role: 'tool', toolCallId: `c${i}`, name: 'read_file', content: `${'x'.repeat(size)}${i}` } });

describe('checkpoint fingerprint on the CPU pool', () => {
  it('a rollout over POOL_FINGERPRINT_MIN_BYTES is digested by the pool job, a small one here; both match replay', async () => {
    const jobs: CpuJob[] = [];
    const s = storeIn(t.dir, { cpu: { run: (job, input) => (jobs.push(job), rt.cpu.run(job, input)) } });
    const big = await s.openRollout(meta({ sessionId: 'big' }));
    const n = Math.ceil(POOL_FINGERPRINT_MIN_BYTES / 1000) + 10;
    await s.appendRollout(big.path, Array.from({ length: n }, (_, i) => tool(i, 1000)));
    const small = await s.openRollout(meta({ sessionId: 'small' }));
    await s.appendRollout(small.path, [tool(1, 10)]);
    const cpBig = await s.writeCheckpoint(big.path, { step: 1, stopReason: 'paused', model: 'm', delegationId: null });
    expect(jobs).toEqual([{ module: 'src/store/rollout/fingerprint-job.js', name: 'fingerprint' }]);
    const cpSmall = await s.writeCheckpoint(small.path, { step: 1, stopReason: 'paused', model: 'm', delegationId: null });
    expect(jobs).toHaveLength(1);
    const [rBig, rSmall] = [await s.readReplay(big.path), await s.readReplay(small.path)];
    expect(rBig.ok && rBig.fingerprint).toBe(cpBig.fingerprint);
    expect(cpBig.messageCount).toBe(n);
    expect(rSmall.ok && rSmall.fingerprint).toBe(cpSmall.fingerprint);
    await s.shutdown();
  });
});
