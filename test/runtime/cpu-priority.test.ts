// A screen's runtime (workerNice) runs its CPU pool threads below the main thread too, as its actor workers: the
// token counter's ranks decode (~370 ms of one thread) started beside a delegation's first tokens at the main
// thread's priority (issue 29). Headless runtimes keep them at the process's priority. Read from the kernel.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startRuntime } from './helpers.js';

const JOB = { module: 'src/runtime/testing/fixture-cpu-job.js', name: 'threadNice' };
const linux = process.platform === 'linux';

function mainNice(): number {
  const stat = readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

describe('CPU pool thread priority', () => {
  it.skipIf(!linux)('headless: the shared pool thread runs at the process\'s priority', async () => {
    const { rt } = await startRuntime({ spares: 0 });
    expect(await rt.cpu.run(JOB, {})).toBe(mainNice());
    await rt.shutdown(2000);
  });

  it.skipIf(!linux)('a screen (workerNice 5): the shared pool thread runs 5 below the main thread; jobs still run', async () => {
    const { rt } = await startRuntime({ spares: 0, workerNice: 5 });
    expect(await rt.cpu.run(JOB, {})).toBe(Math.min(19, mainNice() + 5));
    expect(await rt.cpu.run({ module: JOB.module, name: 'default' }, { n: 3 })).toBe(14);
    const pool = rt.cpuPool('src/runtime/testing/fixture-cpu-job.js', { maxThreads: 1 });
    expect(await pool.run({ n: 2 })).toBe(5); // a pool's own module is still its default job
    await rt.shutdown(2000);
  });
});
