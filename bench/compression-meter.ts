// The compression meter's cost per step when it must count: one new 4 KB read turn over a 200-message
// history, counted with the real encoding on the process's CPU pool, beside the chars/4 meter it replaced.
import { figure, repeat, stats, type Figure } from './lib.js';
import { ContextMeter, type CountMessages } from '../src/actors/agents/compression/threshold.js';
import { poolBackend, TokenCounter } from '../src/actors/llm/tokens.js';
import type { CpuService } from '../src/runtime/cpu-service.js';
import type { ChatMessage } from '../src/runtime/protocol/index.js';

const MODEL = 'gpt-4'; // cl100k_base

let n = 0;
/** One read turn with a fresh 4 KB result (counts are cached per object: every step brings new objects). */
function readTurn(): ChatMessage[] {
  const i = n++;
  return [
    { role: 'assistant', content: '', toolCalls: [{ id: `m${i}`, name: 'read_file', arguments: `{"path":"f${i}.txt"}` }] },
    { role: 'tool', toolCallId: `m${i}`, name: 'read_file', content: `${i} ${'lorem ipsum dolor sit amet '.repeat(152)}` },
  ];
}

/** Median ms of `over()` for one step (the provider's figure covers the history, one turn is new). */
async function stepCost(runs: number, count?: CountMessages): Promise<number[]> {
  const meter = new ContextMeter(count);
  const history: ChatMessage[] = [{ role: 'system', content: 'you are a repo agent' }, { role: 'user', content: 'read every file' }];
  for (let i = 0; i < 99; i++) history.push(...readTurn());
  await meter.measure(history);
  return repeat(runs, async () => {
    meter.report(100_000, history.length);
    history.push(...readTurn());
    const t0 = performance.now();
    // a threshold the byte bound cannot clear: the meter has to count
    await meter.over(history, 100_500);
    return performance.now() - t0;
  });
}

export async function meterFigures(cpu: CpuService, runs: number): Promise<Figure[]> {
  const counter = new TokenCounter(poolBackend(cpu));
  const t0 = performance.now();
  await counter.countText('warm', MODEL); // loads the ranks on the pool thread (once per process)
  const load = performance.now() - t0;
  const real = await stepCost(runs, (m) => counter.countMessageTokens(m, MODEL));
  const estimate = await stepCost(runs);
  return [
    figure('compress_meter_step', 'ms', real, '< 5 ms (one pool round trip per step over the threshold bound)', (v) => v < 5, {
      label: 'chars/4 meter over the same step (the estimate it replaced)',
      value: stats(estimate).median,
    }),
    figure('compress_meter_encoder_load', 'ms', [load], '< 5000 ms (once per process, only past the bound)', (v) => v < 5000),
  ];
}
