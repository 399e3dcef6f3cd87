// The queue's URL, command lines and task payloads (issue 27): no Redis needed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCommand } from '../../bin/cli/args.js';
import { readQueueTasks } from '../../bin/cli/queue/payload.js';
import { maskUrl, parseQueueUrl } from '../../bin/cli/queue/url.js';

let dir: string | undefined;
afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

describe('queue URL', () => {
  it('host, port, db, queue name; the password from the URL, else REDIS_PASSWORD; rediss:// is TLS; messages mask it', () => {
    expect(parseQueueUrl('redis://10.0.0.5:6380/2?queue=nightly', {})).toMatchObject({ connection: { host: '10.0.0.5', port: 6380, db: 2 }, name: 'nightly' });
    const withPass = parseQueueUrl('redis://ops:s3cr%40t@h:1/0', { REDIS_PASSWORD: 'other' });
    expect(withPass.connection).toMatchObject({ username: 'ops', password: 's3cr@t' });
    expect(withPass.display).toBe('redis://ops:***@h:1/0');
    expect(parseQueueUrl('redis://h', { REDIS_PASSWORD: 'from-env' }).connection).toMatchObject({ port: 6379, db: 0, password: 'from-env' });
    expect(parseQueueUrl('redis://h', {}).connection.password).toBeUndefined();
    expect(parseQueueUrl('rediss://cache.example:6380', {}).connection.tls).toEqual({ servername: 'cache.example' });
    expect(parseQueueUrl('redis://h', {}).connection.tls).toBeUndefined();
    expect(maskUrl('rediss://:pw@h:1')).toBe('rediss://:***@h:1');
  });

  it('a bad URL is a usage error that never shows the password', () => {
    expect(() => parseQueueUrl('http://h:1', {})).toThrow(/unsupported scheme/);
    expect(() => parseQueueUrl('redis://:pw@h:1/x', {})).toThrow(/database must be a number/);
    try {
      parseQueueUrl('redis://:hunter2pass@h:1/x', {});
    } catch (err) {
      expect(JSON.stringify(err) + String((err as Error).message)).not.toContain('hunter2pass');
    }
  });
});

describe('queue command lines', () => {
  it('batch --queue, batch status|results --queue, worker --queue', () => {
    expect(parseCommand(['batch', 't.jsonl', '--queue', 'redis://h:1', '--detach', '--attempts', '5', '-y'])).toMatchObject({ kind: 'queue-batch', file: 't.jsonl', detach: true, attempts: 5, flags: { yolo: true } });
    expect(parseCommand(['batch', 'status', '--queue', 'redis://h:1', '--json'])).toMatchObject({ kind: 'queue-status', json: true });
    expect(parseCommand(['batch', 'results', '--queue', 'redis://h:1', '-o', 'r.jsonl'])).toMatchObject({ kind: 'queue-results', out: 'r.jsonl' });
    expect(parseCommand(['worker', '--queue', 'redis://h:1', '--concurrency', '3'])).toMatchObject({ kind: 'worker', concurrency: 3, lockMs: undefined });
    expect(parseCommand(['batch', 't.jsonl', '--parallel', '2'])).toMatchObject({ kind: 'batch' });
    expect(() => parseCommand(['worker'])).toThrow(/--queue/);
    expect(() => parseCommand(['worker', '--queue', 'redis://h:1', '--concurrency', '0'])).toThrow(/at least 1/);
    expect(parseCommand(['worker', '--help'])).toEqual({ kind: 'help', topic: 'worker' });
  });
});

describe('queue payloads', () => {
  it('carry prompt, where, the batch approval mode; repo/ref name a clone; never a key; bad job ids are refused', () => {
    dir = mkdtempSync(join(tmpdir(), 'yagent-queue-args-'));
    const file = join(dir, 'tasks.jsonl');
    writeFileSync(file, ['{"id":"a","prompt":"p1","workspace":"ws"}', '{"id":"b","prompt":"p2","repo":"https://git.example/r.git","ref":"v1","options":{"yolo":false}}'].join('\n'));
    const jobs = readQueueTasks(file, { yolo: true, fullYolo: false, disabledAgents: ['browser'] });
    expect(jobs[0]).toEqual({ v: 1, id: 'a', line: 1, prompt: 'p1', where: { kind: 'path', path: join(dir, 'ws') }, options: { yolo: true, fullYolo: false, disabledAgents: ['browser'] } });
    expect(jobs[1]).toMatchObject({ where: { kind: 'git', repo: 'https://git.example/r.git', ref: 'v1' }, options: { yolo: false } });
    writeFileSync(file, '{"id":"12","prompt":"p"}\n');
    expect(() => readQueueTasks(file, { yolo: false, fullYolo: false, disabledAgents: [] })).toThrow(/cannot be a queue job id/);
    writeFileSync(file, '{"id":"x","prompt":"p","ref":"main"}\n');
    expect(() => readQueueTasks(file, { yolo: false, fullYolo: false, disabledAgents: [] })).toThrow(/"ref" without "repo"/);
  });
});
