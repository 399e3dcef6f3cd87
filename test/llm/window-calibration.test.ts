// A server whose tokenizer counts about twice what ours does (a local model's vocabulary against tiktoken): what it
// reports for successful calls calibrates our count, so the run compresses before its first overflow instead of learning
// the ratio from the overflow answer. The sizes are chosen from the requests themselves (the agent's prompt and tools
// may change): the step that reads B would overflow with our uncalibrated count and fits with the calibrated one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import type { FakeReply, RecordedRequest } from '../../src/actors/llm/fake/script.js';
import { parseConfigText } from '../../src/runtime/config/index.js';
import { runAgent } from '../../src/actors/agents/run-agent.js';
import { inPlaceBackend, TokenCounter } from '../../src/actors/llm/tokens.js';
import { makeHarness } from '../agents/harness.js';

const W = 65536;
const THRESHOLD = W * 0.75;
/** Slack kept on each side of every bound (tokens). */
const M = W * 0.01;
const THOUGHT = '<thought>\ngoal: read the notes\nstep: read them\nreason: the task asks\nplan:\n[>] read\n</thought>';
/** The server's tokenizer: two characters a token over the request as sent (ours, tiktoken, is about four). */
const serverTokens = (r: RecordedRequest): number => Math.ceil((JSON.stringify(r.body['messages']).length + JSON.stringify(r.body['tools'] ?? []).length) / 2);
const toolContents = (r: RecordedRequest): string[] => (r.body['messages'] as { role: string; content: string }[]).filter((m) => m.role === 'tool').map((m) => m.content);
const LINE = 'the quick brown fox jumps over the lazy dog and keeps on running';
/** read_file's line "N\t<line>" as JSON: ~2 characters of escapes and the number beside the text. */
const SERVER_PER_LINE = Math.ceil((LINE.length + 8) / 2);

let fake: FakeProvider;
beforeAll(async () => {
  fake = await FakeProvider.start({ flavour: 'llama.cpp', window: W, model: 'local-model', fallback: { text: 'summary: notes read' } });
  fake.promptTokens = serverTokens;
});
afterAll(async () => {
  await fake.close();
});

describe('calibration from successful calls', () => {
  it('a server counting twice our tokens: the run compresses before the step that would overflow, and no request is refused', async () => {
    const config = parseConfigText(
      `[global.llm]\nuse_provider = "local"\n[global.llm.providers.local]\nmodel = "local-model"\napi_base_url = "${fake.openaiBaseUrl}"\napi_key = "k"\n[routing]\nmode = "fixed"\n[llm]\nmax_retries = 0\n`,
      '/tmp/yagent-calibration.toml',
      {},
    );
    const h = makeHarness({}, { config });
    writeFileSync(join(h.workspace, 'notes.txt'), Array.from({ length: 4000 }, () => LINE).join('\n'));
    const counter = new TokenCounter(inPlaceBackend);
    const read = (id: string, start: number, lines: number) => ({ id, name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt', start_line: start, end_line: start + lines - 1 }) });
    let fixed = 0;
    let planned = { s2: 0, b: 0, k: 0 };
    const agent = 'coding';
    fake.script(
      agent,
      // request 1: the fixed part (system prompt, tools, brief); A (two reads) is sized so that request 2 sits where
      // B can overflow the window unseen by an uncalibrated count and still fit once A is cut
      async (r) => {
        fixed = serverTokens(r);
        // our count of read_file lines against the server's: B's bounds on request 2's size
        const sample = Array.from({ length: 100 }, (_, i) => `${i + 1}\t${LINE}`).join('\n');
        const k = (100 * SERVER_PER_LINE) / (await counter.countMessageTokens([{ role: 'tool', toolCallId: 'x', name: 'read_file', content: sample }], 'local-model'));
        const b = THRESHOLD - fixed - 3 * M;
        const s2 = (W + M - b + (THRESHOLD - M - b / k)) / 2;
        const lines = Math.floor((s2 - fixed) / 2 / SERVER_PER_LINE);
        return { text: THOUGHT, toolCalls: [read('a1', 1, lines), read('a2', 1001, lines)] };
      },
      // request 2: what the server counted for A against our count of it (the ratio the meter will learn); B is the
      // largest batch an uncalibrated meter lets through unseen and a calibrated one still fits once A is cut
      async (r) => {
        const s2 = serverTokens(r);
        const ours = await counter.countMessageTokens(toolContents(r).map((content) => ({ role: 'tool' as const, toolCallId: 'x', name: 'read_file', content })), 'local-model');
        const k = (s2 - fixed) / ours;
        const b = Math.min(THRESHOLD - fixed - 3 * M, (THRESHOLD - M - s2) * k);
        planned = { s2, b, k };
        const lines = Math.floor(b / 3 / SERVER_PER_LINE);
        return { text: THOUGHT, toolCalls: [read('b1', 2001, lines), read('b2', 2501, lines), read('b3', 3001, lines)] };
      },
      ...Array.from({ length: 4 }, () => ({ text: THOUGHT, toolCalls: [{ name: 'agent_exit', arguments: JSON.stringify({ conclusion: 'read', status: 'ok', facts: [], artifacts: [] }) }] }) satisfies FakeReply),
    );
    const out = await runAgent(h.env(null), { agent, role: 'coding', brief: 'read the notes', settings: h.settings, delegationId: 'c1', parentSessionId: 'p' });
    const sent = fake.requestsFor(agent);
    // the scenario holds: B would overflow on top of request 2, and our count of it is about half the server's
    expect(fixed).toBeLessThan(0.2 * W);
    expect(planned.k).toBeGreaterThan(1.5);
    expect(planned.s2 + planned.b).toBeGreaterThan(W + M);
    expect(out.stopReason).toBe('agent_exit');
    // every request fit: the step after B compressed first (A's results cut), never by an overflow answer
    expect(sent.map((r) => serverTokens(r) > W)).not.toContain(true);
    expect(h.events.some((e) => e.type === 'context_compressed')).toBe(true);
    const third = sent[2] as RecordedRequest;
    expect(toolContents(third).filter((c) => c.length > 10_000)).toHaveLength(3);
  }, 60_000);
});
