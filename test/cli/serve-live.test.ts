// serve: a running task takes what clients give it at the Director's next step — a message typed meanwhile (queued,
// then part of the conversation) and a model switch (a provider from the config, a model its server lists); a
// provider that cannot work is refused with the reason.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import { discovered, GOOD_CONFIG, perTestCleanup, runCli, serveClient, start, until, SERVE_WAIT_MS, withScript } from './helpers.js';
import { PRELUDE } from './scripts.js';

const { children, sandbox, onCleanup } = perTestCleanup();

const EXTRA = (altUrl: string): string => `
[global.llm.providers.alt]
api_format = "openai"
api_base_url = "${altUrl}"
model = "alt-model"
api_key = "k"

[global.llm.providers.ph]
api_format = "openai"
api_base_url = "http://127.0.0.1:9/v1"
model = "m"
api_key = "REPLACE_WITH_YOUR_API_KEY"

[global.llm.providers.nokey]
api_format = "openai"
api_base_url = "http://127.0.0.1:9/v1"
model = "m"
api_key_env = "YAGENT_TEST_UNSET_KEY"
`;

describe('serve: a running task takes queued messages and a model switch at its next step', () => {
  it('the Director asks, a client queues a message and switches to alt / alt-2 meanwhile: the next step goes to alt-2 with the message; placeholder and unset-key providers are refused with the reason', async () => {
    const alt = await FakeProvider.start({ model: 'alt-model', models: ['alt-model', 'alt-2'], fallback: { text: 'alt answer', finishReason: 'stop' } });
    onCleanup(() => alt.close());
    const sb = sandbox(`${GOOD_CONFIG}${EXTRA(alt.openaiBaseUrl)}`);
    const serve = start(['serve'], withScript(sb, `${PRELUDE}\nexport default { director: [call('ask_user_for_help', { question: 'which one?' })] };\n`));
    children.push(serve);
    const { get, post, outcome: outcomeOf, events: eventsOf } = serveClient(await discovered(sb));

    const started = await post('/api/start_task', { prompt: 'pick one', workspace: sb.dir });
    const taskId = started.json.task_id as string;
    const requestId = await until(async () => (await get<{ approvals: { request: { requestId: string } }[] }>('/api/approvals')).approvals[0]?.request.requestId, 'the question', SERVE_WAIT_MS);

    const { providers } = await get<{ providers: { name: string; refused: string | null; models: string[] }[] }>('/api/models');
    const by = Object.fromEntries(providers.map((p) => [p.name, p]));
    expect(by['alt']).toMatchObject({ refused: null, models: ['alt-2', 'alt-model'] });
    expect(by['ph']?.refused).toMatch(/placeholder api key/);
    expect(by['nokey']?.refused).toMatch(/YAGENT_TEST_UNSET_KEY/);

    const refused = await post('/api/switch_model', { task_id: taskId, provider: 'ph' });
    expect(refused.status).toBe(409);
    expect(String(refused.json.error)).toMatch(/"ph" cannot be used: .*placeholder/);
    expect((await post('/api/switch_model', { task_id: taskId, provider: 'alt', model: 'alt-2' })).status).toBe(200);
    expect((await post('/api/queue_message', { task_id: taskId, text: 'also check the README' })).status).toBe(202);
    expect((await post('/api/approve', { request_id: requestId, answer: 'the first' })).status).toBe(200);

    expect((await outcomeOf(taskId)).text).toBe('alt answer');
    const first = alt.requests[0];
    expect(first?.body['model']).toBe('alt-2');
    const users = ((first?.body['messages'] ?? []) as { role: string; content: unknown }[]).filter((m) => m.role === 'user').map((m) => m.content);
    expect(users).toContain('also check the README');
    // the step boundary is where it landed: after the answered question, before the step's call
    expect(users.at(-1)).toBe('also check the README');
    const events = await eventsOf(taskId);
    expect(events).toContain('"type":"user_message"');
    expect(events).toMatch(/"type":"model_switched"[^\n]*"provider":"alt"/);
    // nothing left to take back; a finished task takes no more messages
    expect((await post('/api/take_queued', { task_id: taskId })).json.messages).toEqual([]);
    expect((await post('/api/queue_message', { task_id: taskId, text: 'late' })).status).toBe(409);
  }, 90_000);
});

describe('serve: attach send to a running task reaches its Director at the next step', () => {
  it('the Director is mid-turn (several tool steps): attach send queues the message, the next model request of the same turn carries it, no new turn starts; sent to the task while its follow-up turn runs, it reaches that turn', async () => {
    const sb = sandbox(GOOD_CONFIG);
    for (const f of ['a.txt', 'b.txt', 'c.txt']) writeFileSync(join(sb.dir, f), `${f}\n`);
    const mark = (name: string): string => join(sb.dir, name);
    const log = join(sb.dir, 'requests.log');
    // each turn (its prompt: 'read the files', then 'now the second') holds its first request until released, then
    // reads a.txt, b.txt, c.txt and answers; every request is logged with its turn
    const src = `${PRELUDE}
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
const PROMPTS = ['read the files', 'now the second'];
const step = async (req) => {
  const msgs = req.body.messages || [];
  const start = msgs.map((m) => PROMPTS.indexOf(m.content)).reduce((at, p, i) => (p >= 0 ? i : at), 0);
  const turn = PROMPTS.indexOf(msgs[start].content) + 1;
  appendFileSync(${JSON.stringify(log)}, JSON.stringify({ turn, messages: msgs }) + '\\n');
  const tools = msgs.slice(start).filter((m) => m.role === 'tool').length;
  if (tools === 0) {
    writeFileSync(${JSON.stringify(sb.dir)} + '/asked' + turn, 'x');
    while (!existsSync(${JSON.stringify(sb.dir)} + '/release' + turn)) await new Promise((r) => setTimeout(r, 20));
  }
  return tools < 3 ? call('read_file', { path: ['a.txt', 'b.txt', 'c.txt'][tools] }) : say(turn === 1 ? 'read all three' : 'second done');
};
export default { director: times(40, step) };
`;
    const serve = start(['serve'], withScript(sb, src));
    children.push(serve);
    const { get, post, outcome: outcomeOf, events: eventsOf } = serveClient(await discovered(sb));
    const taskId = (await post('/api/start_task', { prompt: 'read the files', workspace: sb.dir })).json.task_id as string;
    await until(() => (existsSync(mark('asked1')) ? true : undefined), 'the first model request', SERVE_WAIT_MS);

    const sent = await runCli(['attach', 'send', taskId, 'also say which is longest'], sb.env);
    expect(sent.code).toBe(0);
    expect(sent.stdout.trim()).toBe(`${taskId}: queued: the Director reads it at its next step (the next turn if this one ends first)`);
    // the event log is written as the dispatcher delivers: wait for the line rather than read it once
    await until(async () => (/"type":"message_queued"[^\n]*"text":"also say which is longest"/.test(await eventsOf(taskId)) ? true : undefined), 'the message_queued event', SERVE_WAIT_MS);
    writeFileSync(mark('release1'), 'go');

    expect((await outcomeOf(taskId)).text).toBe('read all three');
    type Logged = { turn: number; messages: { role: string; content: unknown }[] };
    const requests = (turn: number): Logged['messages'][] => readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Logged).filter((r) => r.turn === turn).map((r) => r.messages);
    expect(JSON.stringify(requests(1)[0])).not.toContain('also say which is longest');
    // the second request of the same turn carries it, after the first step's tool result (the step boundary)
    const second = requests(1)[1] ?? [];
    const at = second.findIndex((m) => m.role === 'user' && m.content === 'also say which is longest');
    expect(at).toBeGreaterThan(second.findIndex((m) => m.role === 'tool'));
    expect(second.findIndex((m) => m.role === 'tool')).toBeGreaterThan(0);
    // one turn: no follow-up task was started for it
    expect((await get<{ tasks: { taskId: string }[] }>('/api/task_status')).tasks.map((t) => t.taskId)).toEqual([taskId]);
    const logs = await runCli(['attach', 'logs', taskId], sb.env);
    expect(logs.stdout).toMatch(/queued[^\n]*also say which is longest/);
    expect(logs.stdout).toMatch(/took a queued message: also say which is longest/);

    // idle now: a message is the next turn; sent to the first task id while that turn runs, it reaches that turn
    const next = await runCli(['attach', 'send', taskId, 'now the second', '--json'], sb.env);
    const turn2 = (JSON.parse(next.stdout) as { task_id: string; delivered: string });
    expect(turn2.delivered).toBe('next_turn');
    await until(() => (existsSync(mark('asked2')) ? true : undefined), 'the second turn\'s first request', SERVE_WAIT_MS);
    const during = await runCli(['attach', 'send', taskId, 'and the sizes'], sb.env);
    expect(during.stdout).toContain(`queued: the Director reads it at its next step (the next turn if this one ends first) — its running turn is ${turn2.task_id}`);
    writeFileSync(mark('release2'), 'go');
    expect((await outcomeOf(turn2.task_id)).text).toBe('second done');
    expect(JSON.stringify(requests(2)[0])).not.toContain('and the sizes');
    expect((requests(2)[1] ?? []).some((m) => m.role === 'user' && m.content === 'and the sizes')).toBe(true);
    expect((await get<{ tasks: unknown[] }>('/api/task_status')).tasks).toHaveLength(2);
  }, 90_000);
});
