// Peak RSS (issue 29): every worker the CLI's runtime starts has its young generation capped (WORKER_LIMITS), the
// Director's prestarted spare included (a spare is adopted only with the same limits, else the Director boots twice).
import { afterEach, expect, it } from 'vitest';
import { prestartDirector, WORKER_LIMITS } from '../../bin/host/boot-plan.js';
import { startRuntime } from '../../bin/host/runtime-adapter.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { prestartedCount, releasePrestarted } from '../../src/runtime/spare-boot.js';

const FIXTURE = 'src/runtime/testing/fixture-actor.js';

let rt: Runtime | undefined;
afterEach(async () => {
  await rt?.shutdown(2000);
  await releasePrestarted();
});

it("the CLI's workers run with the young generation capped, and its runtime adopts the prestarted Director spare", async () => {
  expect(WORKER_LIMITS.maxYoungGenerationSizeMb).toBe(3);
  prestartDirector();
  expect(prestartedCount()).toBe(1);
  rt = await startRuntime(false, { llm: { maxInFlightRequests: 0 } as never });
  expect(prestartedCount()).toBe(0); // adopted: the prestart and the runtime's pool have the same limits
  const task = await rt.startTask('limits');
  const actor = (await task.spawn({ name: 'limits', module: FIXTURE, input: { mode: 'limits' } })) as { maxYoungGenerationSizeMb: number };
  expect(actor.maxYoungGenerationSizeMb).toBe(3);
  await rt.endTask('limits');
}, 60_000);
