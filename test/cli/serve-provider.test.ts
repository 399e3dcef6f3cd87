// serve: start_task carries the TUI's turn spec like the in-process path: `provider` (the `/model` override,
// validated against the configured names) and `session` (the next turn of an earlier task's conversation).
import { describe, expect, it } from 'vitest';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import { discovered, GOOD_CONFIG, perTestCleanup, serveClient, start, withScript } from './helpers.js';

const { children, sandbox, onCleanup } = perTestCleanup();

describe('serve: start_task with provider and session', () => {
  it('a provider override reaches that provider, an unknown one is a 400, and session.resume continues the conversation', async () => {
    const alt = await FakeProvider.start({ model: 'alt-model', fallback: { text: 'alt answer', finishReason: 'stop' } });
    onCleanup(() => alt.close());
    const sb = sandbox(`${GOOD_CONFIG}\n[global.llm.providers.alt]\napi_format = "openai"\napi_base_url = "${alt.openaiBaseUrl}"\nmodel = "alt-model"\napi_key = "k"\n`);
    // the default (scripted) provider answers differently: a turn that reached it would say so
    const serve = start(['serve'], withScript(sb, `export default { director: Array.from({ length: 20 }, () => ({ text: 'default answer', finishReason: 'stop' })) };\n`));
    children.push(serve);
    const { post, outcome } = serveClient(await discovered(sb));
    const api = (body: unknown) => post('/api/start_task', body);

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
