// A run on llama-server with -c 8192 survives one huge tool result (a ~45 KB grep): the result reaches the model cut to
// a share of the window with a note saying how to get the rest, and the run finishes instead of ending in llm_error.
// The fake counts like a real local tokenizer, denser than our estimate (code: ~3 chars a token), and answers
// llama-server's own overflow body (n_prompt_tokens, n_ctx) when the request does not fit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import type { FakeReply, RecordedRequest } from '../../src/actors/llm/fake/script.js';
import { parseConfigText } from '../../src/runtime/config/index.js';
import { runAgent } from '../../src/actors/agents/run-agent.js';
import { makeHarness } from '../agents/harness.js';
import { ContextMeter } from '../../src/actors/agents/compression/threshold.js';
import { resultCharsFor } from '../../src/actors/tools/truncate.js';

const WINDOW = 8192;
const THOUGHT = '<thought>\ngoal: find the handlers\nstep: grep for them\nreason: the task asks\nplan:\n[>] grep\n</thought>';
/** What llama-server would count for the request: ~1.2× chars/4 (its tokenizer on code and JSON; the field saw 26763 where
 *  we estimated 22061). */
const serverTokens = (r: RecordedRequest): number => Math.ceil(((JSON.stringify(r.body['messages']).length + JSON.stringify(r.body['tools'] ?? []).length) * 1.2) / 4);
const toolMessages = (r: RecordedRequest): { content: string }[] => (r.body['messages'] as { role: string; content: string }[]).filter((m) => m.role === 'tool');

let fake: FakeProvider;
beforeAll(async () => {
  fake = await FakeProvider.start({ flavour: 'llama.cpp', window: WINDOW, model: 'local-model' });
});
afterAll(async () => {
  await fake.close();
});

function harness(): ReturnType<typeof makeHarness> {
  const config = parseConfigText(
    `[global.llm]\nuse_provider = "local"\n[global.llm.providers.local]\nmodel = "local-model"\napi_base_url = "${fake.openaiBaseUrl}"\napi_key = "k"\n[routing]\nmode = "fixed"\n[llm]\nmax_retries = 0\n`,
    '/tmp/yagent-small-window.toml',
    {},
  );
  const h = makeHarness({}, { config });
  // ~45 KB of matching lines, like the Director's grep over a repository
  writeFileSync(join(h.workspace, 'big.ts'), Array.from({ length: 900 }, (_, i) => `export function handler${i}(req: Request) { return route(${i}, req); }`).join('\n'));
  return h;
}

/** The server: a request over its window gets llama-server's overflow answer; one that fits gets `reply`. */
const server = (reply: FakeReply) => (r: RecordedRequest): FakeReply => {
  const n = serverTokens(r);
  // what it answers it reports as its prompt_tokens, as llama-server does
  return n > WINDOW ? { fault: { kind: 'overflow', promptTokens: n, window: WINDOW } } : { ...reply, usage: { input: n, output: 20 } };
};

describe('a small window and one huge tool result', () => {
  it('the 45 KB grep result reaches the model cut to a share of the window, with a note; the run finishes', async () => {
    const h = harness();
    const agent = 'coding';
    const exit: FakeReply = { text: THOUGHT, toolCalls: [{ name: 'agent_exit', arguments: JSON.stringify({ conclusion: 'found 900 handlers', status: 'ok', facts: [], artifacts: [] }) }] };
    fake.script(agent, server({ text: THOUGHT, toolCalls: [{ name: 'grep', arguments: JSON.stringify({ pattern: 'handler', path: 'big.ts' }) }] }), ...Array.from({ length: 4 }, () => server(exit)));
    const out = await runAgent(h.env(null), { agent, role: 'coding', brief: 'find every handler', settings: h.settings, delegationId: 'c1', parentSessionId: 'p' });
    const sent = fake.requestsFor(agent);
    expect(out.stopReason).toBe('agent_exit');
    const answered = sent.filter((r) => serverTokens(r) <= WINDOW);
    expect(answered.length).toBe(2);
    const result = toolMessages(answered[1] as RecordedRequest)[0]?.content ?? '';
    // cut to what the window leaves (at most a quarter of it), and the model is told what was cut and how to get the rest
    expect(result.length).toBeLessThan(WINDOW);
    expect(result.length).toBeGreaterThan(2_000);
    expect(result).toMatch(/characters cut here to fit the model's context window/);
    expect(result).toMatch(/narrower grep pattern/);
  }, 60_000);

  it('an overflow the results of one turn cause (no plan to rebuild from) is recovered by cutting them to the server’s stated limit', async () => {
    const h = harness();
    const agent = 'devops';
    // no <thought>: the thinklink stays empty, so tier 3 has nothing to rebuild from; four big greps in one turn
    const grep = (id: string, pattern: string) => ({ id, name: 'grep', arguments: JSON.stringify({ pattern, path: 'big.ts' }) });
    const exit: FakeReply = { text: 'done', toolCalls: [{ name: 'agent_exit', arguments: JSON.stringify({ conclusion: 'found them', status: 'ok', facts: [], artifacts: [] }) }] };
    fake.script(agent, server({ text: 'searching', toolCalls: ['handler', 'route', 'req', 'export'].map((p, i) => grep(`g${i}`, p)) }), ...Array.from({ length: 6 }, () => server(exit)));
    const out = await runAgent(h.env(null), { agent, role: 'devops', brief: 'find the handlers and routes', settings: h.settings, delegationId: 'd1', parentSessionId: 'p' });
    const sent = fake.requestsFor(agent);
    expect(out.stopReason).toBe('agent_exit');
    // one refusal (llama-server's own count), then the cut request fits the stated window
    expect(sent.map((r) => serverTokens(r) > WINDOW)).toEqual([false, true, false]);
    const retried = sent[2] as RecordedRequest;
    expect(toolMessages(retried).every((m) => m.content.length < 2_000)).toBe(true);
    expect(h.events.some((e) => e.type === 'context_compressed')).toBe(true);
  }, 60_000);
});

describe('calibration: the server’s count scales later measures', () => {
  it('after an overflow answer counted N for what we measured E, measures of that model scale by N/E (never down); others do not', async () => {
    let model = 'local-model';
    const meter = new ContextMeter(undefined, () => [], () => model);
    const list = [{ role: 'system' as const, content: 'x'.repeat(4000) }, { role: 'user' as const, content: 'y'.repeat(8000) }];
    const e = await meter.measure(list);
    expect(await meter.calibrate(Math.round(e * 1.25), list)).toBeCloseTo(1.25, 2);
    expect(await meter.measure(list)).toBeGreaterThanOrEqual(Math.round(e * 1.25));
    await meter.calibrate(e, list); // a smaller count does not undo it
    expect(meter.calibration).toBeCloseTo(1.25, 2);
    expect(await meter.over(list, Math.round(e * 1.2))).toBe(true);
    model = 'other-model';
    expect(await meter.measure(list)).toBe(e);
    // the result cap is a quarter of the window: 8192 → 6144 chars, a calibrated window less, an unknown one 40000;
    // half the room above the fixed part when that is less, never under 2000 chars
    expect(resultCharsFor(8192)).toBe(6144);
    expect(resultCharsFor(8192, 1000)).toBe(2000);
    expect(resultCharsFor(8192, 1600)).toBe(2400);
    expect(resultCharsFor(8192 / 1.25)).toBeLessThan(6144);
    expect(resultCharsFor(undefined)).toBe(40_000);
  });
});
