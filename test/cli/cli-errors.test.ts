// Failure paths of the clients a user can act on: three-line errors, own usage, no hanging, no temp dirs left.
import { createServer, type Server } from 'node:net';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childReaper, collect, GOOD_CONFIG, runCli, sandbox, start, until, withScript, type Sandbox } from './helpers.js';
import { batchScript } from './scripts.js';

let sb: Sandbox | undefined;
let blocker: Server | undefined;
const children = childReaper();
afterEach(async () => {
  children.reap();
  sb?.cleanup();
  if (blocker) await new Promise<void>((r) => blocker?.close(() => r()));
  blocker = undefined;
});

describe('client failure paths', () => {
  it('-c cfg serve --port <in use> is a three-line error, not a stack trace', async () => {
    sb = sandbox();
    const cfg = join(sb.dir, 'my.toml');
    writeFileSync(cfg, GOOD_CONFIG);
    blocker = createServer();
    const port = await new Promise<number>((r) => blocker?.listen(0, '127.0.0.1', () => r((blocker?.address() as { port: number }).port)));
    const r = await runCli(['-c', cfg, 'serve', '--port', String(port)], withScript(sb, 'export default {};'));
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n').filter((l) => !l.startsWith('yagent serve:'));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`port ${port} is already in use`));
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 30_000);

  it('serve --help and batch --help print their own usage and exit 0', async () => {
    sb = sandbox();
    const serve = await runCli(['serve', '--help'], sb.env);
    expect(serve.code).toBe(0);
    expect(serve.stdout).toMatch(/^usage: yagent serve \[--port N\]/);
    const batch = await runCli(['batch', '-h'], sb.env);
    expect(batch.stdout).toMatch(/^usage: yagent batch TASKS\.jsonl/);
  });

  it('attach logs UNKNOWN exits 1 naming the task instead of following forever', async () => {
    sb = sandbox(GOOD_CONFIG);
    const s = sb;
    const env = withScript(s, 'export default {};');
    const serve = start(['serve'], env);
    children.push(serve);
    await until(() => (existsSync(join(s.home, 'run')) && readdirSync(join(s.home, 'run')).some((n) => n.endsWith('.json')) ? true : undefined), 'the discovery file');
    const r = await runCli(['attach', 'logs', '-f', 'no-such-task'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no task "no-such-task"/);
    serve.kill('SIGINT');
    expect((await collect(serve)).code).toBe(0);
  }, 30_000);

  it('a batch task whose workspace does not exist fails alone with a clear error; the others run', async () => {
    sb = sandbox(GOOD_CONFIG);
    const tasks = join(sb.dir, 'tasks.jsonl');
    const out = join(sb.dir, 'results.jsonl');
    writeFileSync(tasks, ['{"id":"gone","prompt":"first","workspace":"no/such/dir"}', '{"id":"fine","prompt":"second"}'].join('\n'));
    const r = await runCli(['batch', tasks, '--out', out], withScript(sb, batchScript(false)));
    expect(r.code).toBe(1);
    const results = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; status: string; error?: string });
    expect(results.find((x) => x.id === 'gone')).toMatchObject({ status: 'error', error: expect.stringMatching(/workspace does not exist: .*no\/such\/dir/) });
    expect(results.find((x) => x.id === 'fine')).toMatchObject({ status: 'ok' });
  }, 60_000);

  it('a force-quit demo leaves no temp directory behind', async () => {
    sb = sandbox();
    const tmp = sb.env.TMPDIR ?? '';
    const demo = start(['demo', '-Q'], sb.env);
    children.push(demo);
    const done = collect(demo);
    await new Promise<void>((resolve) => {
      let err = '';
      demo.stderr?.on('data', (d: Buffer) => {
        err += d.toString();
        if (err.includes('director')) resolve();
      });
    });
    expect(readdirSync(tmp).length).toBeGreaterThan(0);
    demo.kill('SIGINT');
    expect((await done).code).toBe(130);
    expect(readdirSync(tmp)).toEqual([]);
  }, 30_000);

  it('an api_base_url that is not an http(s) URL is exit 2 with three lines, before anything boots', async () => {
    sb = sandbox(GOOD_CONFIG.replace('http://127.0.0.1:9/v1', 'localhost:11434/v1'));
    const r = await runCli(['-p', 'hi'], sb.env);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/api_base_url "localhost:11434\/v1" of provider "p" is not an http\(s\) URL/);
  });

  it('the test suite keeps its temp dirs under one run directory removed at the end (test/global-setup.ts)', () => {
    expect(tmpdir()).toMatch(/yagent-test-run-[^/]+$/);
    sb = sandbox();
    expect(sb.env.TMPDIR).toMatch(/yagent-test-run-.*\/tmp$/);
  });
});
