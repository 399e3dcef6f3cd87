// The answer path is run once after a workspace's first build, after the questions waiting for that build are
// answered: the first real question does not pay for compiling it (the p99 of `callers` in bench/codeseek.ts).
import { rmSync } from 'node:fs';
import { afterAll, expect, it, vi } from 'vitest';
import { CodeSeek } from '../../src/actors/codeseek/engine.js';
import { createTaskGroup } from '../../src/runtime/tasks.js';
import { realClock } from '../../src/runtime/clock.js';
import { TS_FILES, tempRepo } from './fixtures.js';
import type * as Answers from '../../src/actors/codeseek/answers.js';

const order: string[] = [];
vi.mock('../../src/actors/codeseek/answers.js', async (importOriginal) => {
  const real = await importOriginal<typeof Answers>();
  return { ...real, warmAnswers: vi.fn((ix: Parameters<typeof real.warmAnswers>[0]) => (order.push('warm'), real.warmAnswers(ix))) };
});
const { warmAnswers } = await import('../../src/actors/codeseek/answers.js');

const ws = tempRepo(TS_FILES);
afterAll(() => rmSync(ws, { recursive: true, force: true }));

it('after the first build the engine runs the answer path once, after the question that waited for the build', async () => {
  const cs = new CodeSeek({ tasks: createTaskGroup(), clock: realClock });
  const asked = cs.ask(ws, { op: 'callers', name: 'add' }).then((a) => (order.push('answer'), a));
  await cs.settle(ws);
  expect((await asked).text).toContain('3 call site(s)');
  expect(order).toEqual(['answer', 'warm']);
  await cs.settle(ws); // a later refresh: already warm
  expect(vi.mocked(warmAnswers)).toHaveBeenCalledTimes(1);
});
