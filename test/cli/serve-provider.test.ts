// serve: start_task carries the TUI's turn spec like the in-process path: `provider` (the `/model` override,
// validated against the configured names) and `session` (the next turn of an earlier task's conversation).
import { afterEach, describe, expect, it } from 'vitest';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import { childReaper, discovered, GOOD_CONFIG, sandbox, start, until, SERVE_WAIT_MS, withScript, type Sandbox } from './helpers.js';

let sb: Sandbox | undefined;
let alt: FakeProvider | undefined;
const children = childReaper();
afterEach(async () => {
  children.reap();
  await alt?.close();
  sb?.cleanup();
});

const WAIT_MS = SERVE_WAIT_MS;


describe('serve: start_task with provider and session', () => {
  it('a provider override reaches that provider, an unknown one is a 400, and session.resume continues the conversation', async () => {
    alt = await FakeProvider.start({ model: 'alt-model', fallback: { text: 'alt answer', finishReason: 'stop' } });
    sb = sandbox(`${GOOD_CONFIG}\n[global.llm.providers.alt]\napi_format = "openai"\napi_base_url = "${alt.openaiBaseUrl}"\nmodel = "alt-model"\napi_key = "k"\n`);
    // the default (scripted) provider answers differently: a turn that reached it would say so
    const serve = start(['serve'], withScript(sb, `export default { director: Array.from({ length: 20 }, () => ({ text: 'default answer', finishReason: 'stop' })) };\n`));
    children.push(serve);
    const info = await discovered(sb);
    const api = async (body: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
      const r = await fetch(`${info.address}/api/start_task`, { method: 'POST', headers: { authorization: `Bearer ${info.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: r.status, json: (await r.json()) as Record<string, unknown> };
    };
    const outcome = (id: string) =>
      until(async () => {
        const r = await fetch(`${info.address}/api/task_status?task=${id}`, { headers: { authorization: `Bearer ${info.token}` } });
        return ((await r.json()) as { outcome: { text: string; sessionId?: string } | null }).outcome ?? undefined;
      }, `task ${id}`, WAIT_MS);

    const unknown = await api({ prompt: 'q', workspace: sb.dir, provider: 'nope' });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.json)).toContain('nope');
    expect(JSON.stringify(unknown.json)).toMatch(/alt.*p.*scripted|configured: .*alt/);

    const first = await api({ prompt: 'first question', workspace: sb.dir, provider: 'alt' });
    expect(first.status).toBe(202);
    const one = await outcome(first.json.task_id as string);
    expect(one.text).toBe('alt answer');
    const afterFirst = alt.requests.length;
    expect(afterFirst).toBeGreaterThan(0);

    const second = await api({ prompt: 'follow up', workspace: sb.dir, provider: 'alt', session: { resume: one.sessionId } });
    expect(second.status).toBe(202);
    expect((await outcome(second.json.task_id as string)).text).toBe('alt answer');
    const turn2 = alt.requests.slice(afterFirst).map((r) => JSON.stringify(r.body['messages'] ?? []));
    expect(turn2.length).toBeGreaterThan(0);
    expect(turn2[0]).toContain('first question');
    expect(turn2[0]).toContain('alt answer');
    expect(turn2[0]).toContain('follow up');
  }, 90_000);
});
