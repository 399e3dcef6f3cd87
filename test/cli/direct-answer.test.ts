// A direct answer costs one model call (issue 25 item 1), counted at a loopback fake the CLI reaches over HTTP: a
// greeting is one request; an answer claiming work no delegation did is reminded once, and the next turn of the
// session carries neither the reminder nor the claim.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import { UNDELEGATED_REMINDER } from '../../src/actors/agents/run-agent.js';
import { project, runCli, sandbox, type Sandbox } from './helpers.js';

let sb: Sandbox | undefined;
let fake: FakeProvider | undefined;
afterEach(async () => {
  await fake?.close();
  sb?.cleanup();
});

const configFor = (f: FakeProvider): string =>
  `[global.llm]\nuse_provider = "p"\n\n[global.llm.providers.p]\napi_format = "openai"\napi_base_url = "${f.openaiBaseUrl}"\nmodel = "m"\napi_key = "k"\n\n[llm]\nmax_retries = 0\n`;

describe('a direct answer', () => {
  it('`-p "hi"` makes exactly one model request', async () => {
    fake = await FakeProvider.start({ model: 'm', fallback: { text: 'Hello! How can I help?', finishReason: 'stop' } });
    sb = sandbox(configFor(fake));
    const r = await runCli(['-p', 'hi'], sb.env, { cwd: project(sb) });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('Hello! How can I help?');
    expect(fake.requests).toHaveLength(1);
  }, 60_000);

  it('an answer claiming work no delegation did is reminded once, and the next turn carries none of it', async () => {
    fake = await FakeProvider.start({ model: 'm' });
    fake.script('director', { text: "I've updated src/app.ts.", finishReason: 'stop' }, { text: 'Nothing was changed: I can only delegate.', finishReason: 'stop' }, { text: 'Second turn.', finishReason: 'stop' });
    sb = sandbox(configFor(fake));
    const ws = project(sb);
    const one = await runCli(['-p', 'fix the bug'], sb.env, { cwd: ws });
    expect(one.code).toBe(0);
    expect(one.stdout.trim()).toBe('Nothing was changed: I can only delegate.');
    expect(fake.requests).toHaveLength(2);
    expect(JSON.stringify(fake.requests[1]?.body['messages'])).toContain(JSON.stringify(UNDELEGATED_REMINDER).slice(1, -1));

    const two = await runCli(['-p', 'and now?', '--continue'], sb.env, { cwd: ws });
    expect(two.code).toBe(0);
    expect(fake.requests).toHaveLength(3);
    const sent = JSON.stringify(fake.requests[2]?.body['messages']);
    expect(sent).toContain('Nothing was changed: I can only delegate.');
    expect(sent).not.toContain('updated src/app.ts');
    expect(sent).not.toContain('delegated nothing this turn');
  }, 90_000);
});
