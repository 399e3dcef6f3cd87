// batch resume after an interrupted run, and the no-key demo, as real subprocesses.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collect, GOOD_CONFIG, runCli, sandbox, start, withScript, type Sandbox } from './helpers.js';
import { batchScript } from './scripts.js';

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

const ids = (file: string): string[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => (JSON.parse(l) as { id: string }).id);

describe('batch and demo', () => {
  it('batch resume: Ctrl-C drains the running task and reports it; a re-run skips finished tasks', async () => {
    sb = sandbox(GOOD_CONFIG);
    const tasks = join(sb.dir, 'tasks.jsonl');
    const out = join(sb.dir, 'results.jsonl');
    writeFileSync(tasks, ['{"id":"a","prompt":"first task"}', '{"id":"b","prompt":"second task STALL"}', '{"id":"c","prompt":"third task"}'].join('\n'));
    const first = start(['batch', tasks, '--parallel', '1', '--out', out], withScript(sb, batchScript(true)));
    const firstDone = collect(first);
    // interrupt once "a" has its result line and "b" (which stalls) is running
    await new Promise<void>((resolve) => {
      let err = '';
      first.stderr?.on('data', (d: Buffer) => {
        err += d.toString();
        if (/1\/3 done · 1 running/.test(err)) resolve();
      });
    });
    first.kill('SIGINT');
    const r1 = await firstDone;
    expect(r1.code).toBe(130);
    expect(r1.stderr).toMatch(/did not finish: b, c/);
    expect(ids(out)).toEqual(['a']);
    const second = await runCli(['batch', tasks, '--parallel', '2', '--out', out], withScript(sb, batchScript(false)));
    expect(second.stderr).toMatch(/1 skipped/);
    expect(second.code).toBe(0);
    expect(ids(out).sort()).toEqual(['a', 'b', 'c']);
    const results = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; status: string; result: string });
    expect(results.find((x) => x.id === 'b')).toMatchObject({ status: 'ok', result: expect.stringContaining('second task STALL') });
  }, 60_000);

  it('demo passes with no key: real agents on a scripted model, says so, prints rollout and notes', async () => {
    sb = sandbox();
    const r = await runCli(['demo'], sb.env);
    expect(r.stderr).toMatch(/SCRIPTED model/);
    expect(r.stderr).toMatch(/director → repo/);
    expect(r.stderr).toMatch(/coding · run_bash node test\.js/);
    expect(r.stderr).toMatch(/rollout: \S+\.jsonl/);
    expect(r.stderr).toMatch(/notes: coding\//);
    expect(r.stderr).toMatch(/demo: passed/);
    expect(r.stdout).toMatch(/all tests passed/);
    expect(r.code).toBe(0);
  });
});
