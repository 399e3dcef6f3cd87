// --provider / --model (issue 25 item 5): -p, batch (a line may name its own) and attach send run on the named
// provider with the named model, counted at two loopback fakes; an unknown provider is exit 2 with a did-you-mean.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ResultObjectSchema } from '../../bin/cli/stream-json.js';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import { childReaper, discovered, project, runCli, sandbox, serveClient, start, type Sandbox } from './helpers.js';

let sb: Sandbox | undefined;
let fakes: FakeProvider[] = [];
const children = childReaper();
afterEach(async () => {
  children.reap();
  await Promise.all(fakes.map((f) => f.close()));
  fakes = [];
  sb?.cleanup();
});

/** `main` (the default provider) and `alt`, each its own fake that answers with its name. */
async function twoProviders(): Promise<{ main: FakeProvider; alt: FakeProvider; config: string }> {
  const main = await FakeProvider.start({ model: 'main-model', fallback: { text: 'from main', finishReason: 'stop' } });
  const alt = await FakeProvider.start({ model: 'alt-model', fallback: { text: 'from alt', finishReason: 'stop' } });
  fakes = [main, alt];
  const p = (name: string, f: FakeProvider, model: string): string => `[global.llm.providers.${name}]\napi_format = "openai"\napi_base_url = "${f.openaiBaseUrl}"\nmodel = "${model}"\napi_key = "k"\n`;
  const config = `[global.llm]\nuse_provider = "main"\n\n${p('main', main, 'main-model')}\n${p('alt', alt, 'alt-model')}\n[llm]\nmax_retries = 0\n`;
  return { main, alt, config };
}

const models = (f: FakeProvider): unknown[] => f.requests.map((r) => r.body['model']);

describe('--provider / --model', () => {
  it('-p: --provider and --model choose where every call goes; --model alone keeps the default provider; a typo is exit 2', async () => {
    const { main, alt, config } = await twoProviders();
    sb = sandbox(config);
    const ws = project(sb);
    const both = await runCli(['-p', 'hi', '--provider', 'alt', '--model', 'alt-big'], sb.env, { cwd: ws });
    expect(both.code).toBe(0);
    expect(both.stdout.trim()).toBe('from alt');
    expect(models(alt)).toEqual(['alt-big']);
    expect(main.requests).toHaveLength(0);

    const modelOnly = await runCli(['-p', 'hi', '--model', 'main-small'], sb.env, { cwd: ws });
    expect(modelOnly.stdout.trim()).toBe('from main');
    expect(models(main)).toEqual(['main-small']);

    const typo = await runCli(['-p', 'hi', '--provider', 'atl'], sb.env, { cwd: ws });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('unknown provider "atl" (did you mean "alt"?); configured: main, alt');
    expect(typo.stderr).toContain('yagent setup');
    expect(main.requests.length + alt.requests.length).toBe(2);
  }, 90_000);

  it('batch: --provider/--model for every task, a line names its own, a line with an unknown provider fails alone', async () => {
    const { main, alt, config } = await twoProviders();
    sb = sandbox(config);
    const ws = project(sb);
    const file = join(sb.dir, 'tasks.jsonl');
    writeFileSync(file, [
      JSON.stringify({ id: 'flags', prompt: 'a', workspace: ws }),
      JSON.stringify({ id: 'own', prompt: 'b', workspace: ws, provider: 'main', model: 'main-own' }),
      JSON.stringify({ id: 'typo', prompt: 'c', workspace: ws, provider: 'mian' }),
    ].join('\n') + '\n');
    const r = await runCli(['batch', file, '--provider', 'alt', '--model', 'alt-batch', '--parallel', '1'], sb.env, { cwd: ws });
    expect(r.code).toBe(1);
    const results = readFileSync(join(sb.dir, 'tasks.results.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; status: string; result: string; error?: string });
    const by = Object.fromEntries(results.map((x) => [x.id, x]));
    expect(by['flags']).toMatchObject({ status: 'ok', result: 'from alt' });
    expect(by['own']).toMatchObject({ status: 'ok', result: 'from main' });
    expect(by['typo']?.status).toBe('error');
    expect(by['typo']?.error).toContain('unknown provider "mian" (did you mean "main"?)');
    expect(models(alt)).toEqual(['alt-batch']);
    expect(models(main)).toEqual(['main-own']);
  }, 90_000);

  it('attach send --provider --model: the follow-up turn runs there; an unknown provider is exit 2, nothing sent', async () => {
    const { main, alt, config } = await twoProviders();
    sb = sandbox(config);
    const s = sb;
    const serve = start(['serve'], s.env);
    children.push(serve);
    const info = await discovered(s);
    const { call, outcome } = serveClient(info);
    const api = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> => (await call(method, path, body)).json;
    const first = (await api('POST', '/api/start_task', { prompt: 'first', workspace: s.dir })).task_id as string;
    expect((await outcome(first)).text).toBe('from main');
    // the control API gives the same v2 result object as -p json and batch lines
    const result = ResultObjectSchema.parse((await api('GET', `/api/task_status?task=${first}`)).result);
    expect(result).toMatchObject({ v: 2, type: 'result', task_id: first, result: 'from main', exit_code: 0 });
    expect(result.usage.input_tokens).toBeGreaterThan(0);

    const refused = await runCli(['attach', 'send', first, 'again', '--provider', 'alx'], s.env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('unknown provider "alx" (did you mean "alt"?)');

    const sent = await runCli(['attach', 'send', first, 'again', '--provider', 'alt', '--model', 'alt-send', '--json'], s.env);
    expect(sent.code).toBe(0);
    const follow = JSON.parse(sent.stdout) as { task_id: string };
    expect((await outcome(follow.task_id)).text).toBe('from alt');
    expect(models(alt)).toEqual(['alt-send']);
    expect(main.requests).toHaveLength(1);
  }, 90_000);
});
