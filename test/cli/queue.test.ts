// Batch through a Redis queue (issue 27): a real redis-server on loopback, real `yagent worker` processes, the real
// CLI; only the model is scripted. Fail-over is fast because the workers run with --lock-ms / --stalled-ms lowered
// (BullMQ's defaults are 30 s each): a dead worker's task is taken over within ~lock + 2 × stalled.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childReaper, collect, GOOD_CONFIG, runCli, sandbox, start, until, withScript, type Sandbox } from './helpers.js';
import { faultsScript, holdScript } from './queue-scripts.js';
import { redisFound, startRedis, stderrMatch, type RedisServer } from './redis-helpers.js';

let sb: Sandbox | undefined;
let redis: RedisServer | undefined;
const reaper = childReaper();
afterEach(async () => {
  reaper.reap();
  await redis?.stop();
  sb?.cleanup();
});

const FAST = ['--lock-ms', '2000', '--stalled-ms', '1000'];

function worker(env: NodeJS.ProcessEnv, url: string, name: string): ChildProcess {
  const w = start(['worker', '--queue', url, '--name', name, ...FAST], env);
  reaper.push(w);
  return w;
}

const lines = (file: string): Record<string, unknown>[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Processes whose command line names the sandbox (a worker, a git clone, a shell it started). */
const processesIn = (dir: string): string[] =>
  readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .map((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ');
      } catch {
        return '';
      }
    })
    .filter((c) => c.includes(dir));

function gitRepo(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'README.md'), '# origin\n');
  const git = (...args: string[]): void => void execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
  return dir;
}

describe.skipIf(!redisFound && process.env.CI !== 'true')('batch through a Redis queue (BullMQ)', () => {
  it('6 tasks, 2 workers, one SIGKILLed mid-task: one result each, the killed task done by the other worker, nothing left; a re-run queues nothing', async () => {
    sb = sandbox(GOOD_CONFIG);
    redis = await startRedis(sb.dir);
    const origin = gitRepo(join(sb.dir, 'origin'));
    const marker = join(sb.dir, 'held-by');
    const env = withScript(sb, holdScript(marker, join(sb.dir, 'no-gate'), join(sb.dir, 'no-wait')));
    const tasks = join(sb.dir, 'tasks.jsonl');
    const prompts = ['one', 'two', 'three HOLD', 'four', 'five', 'six'];
    writeFileSync(tasks, prompts.map((p, i) => JSON.stringify({ id: `t${i + 1}`, prompt: `task ${p}`, repo: origin, ref: 'main' })).join('\n'));

    const batch = start(['batch', tasks, '--queue', redis.url, '--attempts', '2', '--backoff-ms', '200'], env);
    reaper.push(batch);
    const batchDone = collect(batch);
    const workers = new Map<number, { name: string; child: ChildProcess }>();
    for (const name of ['w1', 'w2']) {
      const child = worker(env, redis.url, name);
      workers.set(child.pid ?? 0, { name, child });
    }
    // the HOLD task is in the middle of a model call on one worker: kill that worker outright
    const heldBy = Number(await until(() => (existsSync(marker) ? readFileSync(marker, 'utf8') : undefined), 'a worker to take the HOLD task', 30_000));
    const victim = workers.get(heldBy);
    expect(victim).toBeDefined();
    const victimExit = new Promise((r) => victim?.child.once('exit', r));
    victim?.child.kill('SIGKILL');
    await victimExit;
    const survivor = [...workers.values()].find((w) => w !== victim);
    const survivorDone = survivor ? collect(survivor.child) : Promise.reject(new Error('no survivor'));

    const b = await batchDone;
    expect(b.stderr).toMatch(/\[batch\] 6\/6 done · 0 running · 0 failed · 0 pending/);
    expect(b.code).toBe(0);
    survivor?.child.kill('SIGTERM');
    const s = await survivorDone;
    expect(s.code).toBe(0);
    expect(s.stderr).toMatch(/removed the workspace of a dead worker/);

    const out = join(sb.dir, 'results.jsonl');
    expect((await runCli(['batch', 'results', '--queue', redis.url, '--out', out], sb.env)).code).toBe(0);
    const results = lines(out);
    expect(results.map((r) => r['id'])).toEqual(['t1', 't2', 't3', 't4', 't5', 't6']);
    expect(results.every((r) => r['status'] === 'ok')).toBe(true);
    const held = results.find((r) => r['id'] === 't3');
    expect(held).toMatchObject({ worker: survivor?.name, result: expect.stringContaining('three HOLD') });
    expect(held?.['attempt']).toBeGreaterThan(1);
    // no workspace (the killed worker's private dir was swept by the survivor) and no process left
    expect(readdirSync(join(sb.dir, 'tmp')).filter((n) => n.startsWith('yagent-worker-'))).toEqual([]);
    expect(alive(heldBy)).toBe(false);
    expect(processesIn(sb.dir)).toEqual([]);

    const again = await runCli(['batch', tasks, '--queue', redis.url, '--detach'], env);
    expect(again.stderr).toMatch(/queued 0 new task\(s\).*; 6 already queued or done/);
    expect(again.code).toBe(0);
    const status = await runCli(['batch', 'status', '--queue', redis.url, '--json'], sb.env);
    expect(JSON.parse(status.stdout)).toMatchObject({ pending: 0, running: 0, ok: 6, failed: 0 });
  }, 90_000);

  it('Redis restarted mid-run, then SIGTERM drains the worker (its task finishes, no new one taken); another worker finishes the batch', async () => {
    sb = sandbox(GOOD_CONFIG);
    redis = await startRedis(sb.dir);
    const gate = join(sb.dir, 'gate');
    const waiting = join(sb.dir, 'waiting');
    const env = withScript(sb, holdScript(join(sb.dir, 'no-hold'), gate, waiting));
    const ws = join(sb.dir, 'ws');
    mkdirSync(ws);
    const tasks = join(sb.dir, 'tasks.jsonl');
    writeFileSync(tasks, ['{"id":"a","prompt":"first","workspace":"ws"}', '{"id":"b","prompt":"second GATE","workspace":"ws"}', '{"id":"c","prompt":"third","workspace":"ws"}'].join('\n'));
    const w = worker(env, redis.url, 'w1');
    const wDone = collect(w);
    const batch = start(['batch', tasks, '--queue', redis.url], env);
    reaper.push(batch);
    const batchDone = collect(batch);
    await until(() => (existsSync(waiting) ? true : undefined), 'the GATE task to be running', 30_000);
    // Redis goes away while task b is running and comes back with the same data (append-only file)
    await redis.restart();
    // SIGTERM drains: b finishes on this worker, c is not taken
    const draining = stderrMatch(w, /draining/);
    w.kill('SIGTERM');
    await draining;
    writeFileSync(gate, 'open');
    const drained = await wDone;
    expect(drained.code).toBe(0);
    expect(drained.stderr).toMatch(/b: ok/);
    expect(drained.stderr).not.toMatch(/c: started/);
    const mid = await runCli(['batch', 'status', '--queue', redis.url, '--json'], sb.env);
    expect(JSON.parse(mid.stdout)).toMatchObject({ pending: 1, running: 0, ok: 2, workers: [] });
    // another worker takes the rest; the following batch (connected through the restart) sees it finish
    const w2 = worker(env, redis.url, 'w2');
    const w2Done = collect(w2);
    const b = await batchDone;
    expect(b.stderr).toMatch(/\[batch\] 3\/3 done/);
    expect(b.stderr).toMatch(/finished: 3 ok, 0 failed/);
    expect(b.code).toBe(0);
    w2.kill('SIGTERM');
    expect((await w2Done).code).toBe(0);
    const r = await runCli(['batch', 'results', '--queue', redis.url], sb.env);
    expect(r.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { id: string; status: string }).status)).toEqual(['ok', 'ok', 'ok']);
  }, 90_000);
  it('faults and security: a failing task is retried then failed with its error, needs_approval is not retried, results are redacted, no key reaches Redis, a git task reports its diff', async () => {
    const configKey = 'cfg-secret-key-0123456789abcdef';
    const envKey = 'sk-queue-secret-0123456789abcdef';
    sb = sandbox(GOOD_CONFIG.replace('api_key = "k"', `api_key = "${configKey}"`));
    const password = 'redis-pass-0123456789';
    redis = await startRedis(sb.dir, password);
    const withPassword = redis.url.replace('redis://', `redis://:${password}@`);
    const origin = gitRepo(join(sb.dir, 'origin'));
    const outside = join(sb.dir, 'outside-report.txt');
    const env = { ...withScript(sb, faultsScript(outside)), MY_API_KEY: envKey };
    mkdirSync(join(sb.dir, 'ws'));
    const localRepo = gitRepo(join(sb.dir, 'local-repo'));
    const tasks = join(sb.dir, 'tasks.jsonl');
    writeFileSync(
      tasks,
      [
        { id: 'secret', prompt: 'say SECRET', workspace: 'ws' },
        { id: 'fail', prompt: 'this will FAIL', workspace: 'ws' },
        { id: 'edit', prompt: 'please EDIT', repo: origin, ref: 'main' },
        { id: 'ask', prompt: 'write OUTSIDE', workspace: 'ws' },
        { id: 'local-edit', prompt: 'please EDIT in place', workspace: 'local-repo' },
      ]
        .map((t) => JSON.stringify(t))
        .join('\n'),
    );
    // the worker reads the password from REDIS_PASSWORD, the batch from its URL; neither prints it
    const w = start(['worker', '--queue', redis.url, '--concurrency', '2', '--name', 'wq', ...FAST], { ...env, REDIS_PASSWORD: password });
    reaper.push(w);
    const wDone = collect(w);
    const out = join(sb.dir, 'results.jsonl');
    const b = await runCli(['batch', tasks, '--queue', withPassword, '--attempts', '2', '--backoff-ms', '100', '--out', out], env);
    expect(b.stderr).toContain(redis.url.replace('redis://', 'redis://:***@'));
    expect(b.stderr).not.toContain(password);
    expect(b.stderr).toMatch(/\[batch\] 5\/5 done · 0 running · 2 failed · 0 pending/);
    expect(b.code).toBe(1);
    w.kill('SIGTERM');
    const wr = await wDone;
    expect(wr.code).toBe(0);
    expect(wr.stderr).not.toContain(password);
    const denied = await runCli(['batch', 'status', '--queue', redis.url], sb.env);
    expect(denied.stderr).toMatch(/cannot use the queue: .*(NOAUTH|auth)/i);
    expect(denied.code).toBe(1);

    const byId = new Map(lines(out).map((r) => [r['id'], r]));
    expect([...byId.keys()]).toEqual(['secret', 'fail', 'edit', 'ask', 'local-edit']);
    expect(byId.get('secret')).toMatchObject({ status: 'ok', worker: 'wq', result: expect.stringContaining('[REDACTED]') });
    expect(JSON.stringify(byId.get('secret'))).not.toContain(envKey);
    expect(byId.get('fail')).toMatchObject({ status: 'error', attempt: 2, error: expect.stringMatching(/500|outage/) });
    expect(byId.get('ask')).toMatchObject({ status: 'needs_approval', attempt: 1 });
    expect(existsSync(outside)).toBe(false);
    expect(byId.get('edit')).toMatchObject({ status: 'ok', diff: expect.stringContaining('+hello from the queue') });
    expect(String(byId.get('edit')?.['diff'])).toContain('b/hello.txt');
    expect(byId.get('secret')).toMatchObject({ diff: null }); // not a git work tree
    // a path workspace's diff comes through a private index: the repository's own index is untouched
    expect(byId.get('local-edit')).toMatchObject({ status: 'ok', diff: expect.stringContaining('+hello from the queue') });
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: localRepo, encoding: 'utf8' })).toBe('?? hello.txt\n');
    // nothing that went through Redis (the append-only file holds every write) carries a key
    await redis.stop();
    const written = readdirSync(join(redis.dir, 'appendonlydir'))
      .map((f) => readFileSync(join(redis!.dir, 'appendonlydir', f), 'latin1'))
      .join('');
    expect(written).toContain('say SECRET');
    expect(written).not.toContain(envKey);
    expect(written).not.toContain(configKey);
  }, 90_000);
});
