// `yagent -p` as a real subprocess on a scripted model: every output format and every exit code.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ResultObjectSchema, StreamLineSchema } from '../../bin/cli/stream-json.js';
import { collect, GOOD_CONFIG, project, runCli, sandbox, start, withScript, type Sandbox } from './helpers.js';
import { DELEGATING, FAILING, STALLING, writingOutside } from './scripts.js';

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

describe('headless -p', () => {
  it('text: the answer on stdout, progress on stderr, exit 0', async () => {
    sb = sandbox(GOOD_CONFIG);
    const r = await runCli(['-p', 'what is this project called?'], withScript(sb, DELEGATING), { cwd: project(sb) });
    expect(r.stderr).toMatch(/director → repo/);
    expect(r.stdout.trim()).toBe('The project is called yagent-fixture.');
    expect(r.code).toBe(0);
  });

  it('json: one final object with result, stop reason, usage, notes and rollout path', async () => {
    sb = sandbox(GOOD_CONFIG);
    const r = await runCli(['-p', 'name?', '--output-format', 'json'], withScript(sb, DELEGATING), { cwd: project(sb) });
    expect(r.code).toBe(0);
    const obj = ResultObjectSchema.parse(JSON.parse(r.stdout));
    expect(obj).toMatchObject({ result: 'The project is called yagent-fixture.', exit_code: 0 });
    expect(obj.usage.input_tokens).toBeGreaterThan(0);
    expect(obj.rollout_path && existsSync(obj.rollout_path)).toBe(true);
  });

  it('stream-json: versioned lines whose parent links rebuild the delegation tree, then the result', async () => {
    sb = sandbox(GOOD_CONFIG);
    const r = await runCli(['-p', 'name?', '--output-format', 'stream-json'], withScript(sb, DELEGATING), { cwd: project(sb) });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => StreamLineSchema.parse(JSON.parse(l)));
    expect(lines[0]?.type).toBe('run_start');
    expect(lines.at(-1)).toMatchObject({ type: 'result', data: { result: 'The project is called yagent-fixture.' } });
    const events = lines.filter((l) => l.seq !== null);
    const seqs = events.map((l) => l.seq ?? 0);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    const repoLine = events.find((l) => l.delegation_id !== null && l.source.includes('repo'));
    expect(repoLine?.parent).toBeNull(); // started by the Director
    expect(events.some((l) => l.type === 'delegation_start' && l.delegation_id === null)).toBe(true);
  });

  it('the prompt can come from stdin', async () => {
    sb = sandbox(GOOD_CONFIG);
    const r = await runCli(['-p', '-'], withScript(sb, DELEGATING), { cwd: project(sb), input: 'what is this project called?\n' });
    expect(r.stdout.trim()).toBe('The project is called yagent-fixture.');
    expect(r.code).toBe(0);
  });

  it('needs approval in a run that cannot ask: exit 3 and the file is not written', async () => {
    sb = sandbox(GOOD_CONFIG);
    const target = join(sb.dir, 'outside.txt');
    const r = await runCli(['-p', 'write it', '--output-format', 'json'], withScript(sb, writingOutside(target)), { cwd: project(sb) });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout).needs_approval.length).toBeGreaterThan(0);
    expect(existsSync(target)).toBe(false);
    // the user reads what happened and what to do, once
    expect(r.stderr.match(/^yagent: .*cannot ask.*re-run with -y.*yagent serve.*--attach.*$/gm)).toHaveLength(1);
  });

  it('-y bypasses the approval: exit 0 and the file is written', async () => {
    sb = sandbox(GOOD_CONFIG);
    const target = join(sb.dir, 'outside.txt');
    const r = await runCli(['-p', 'write it', '-y'], withScript(sb, writingOutside(target)), { cwd: project(sb) });
    expect(r.code).toBe(0);
    expect(existsSync(target)).toBe(true);
  });

  it('a failing model is exit 1 with the error on stderr', async () => {
    sb = sandbox(GOOD_CONFIG);
    const r = await runCli(['-p', 'hi', '--output-format', 'json'], withScript(sb, FAILING), { cwd: project(sb) });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).exit_code).toBe(1);
  });

  it('a broken config is three lines on stderr and exit 2', async () => {
    sb = sandbox('[global.llm\nuse_provider = 1\n');
    const r = await runCli(['-p', 'hi'], withScript(sb, DELEGATING), { cwd: project(sb) });
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/where:/);
    expect(lines[2]).toMatch(/fix:/);
  });

  it('Ctrl-C cancels gracefully: stop reason cancelled, exit 130', async () => {
    sb = sandbox(GOOD_CONFIG);
    const child = start(['-p', 'hi', '--output-format', 'stream-json'], withScript(sb, STALLING), { cwd: project(sb) });
    const done = collect(child);
    // interrupt once the model request is in flight (the stalled stream has begun)
    await new Promise<void>((resolve) => {
      let out = '';
      child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('"type":"ai_stream_start"')) resolve();
      });
    });
    child.kill('SIGINT');
    const r = await done;
    expect(r.stderr).toMatch(/cancelling/);
    expect(r.code).toBe(130);
    const last = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}');
    expect(last).toMatchObject({ type: 'result', data: { stop_reason: 'cancelled', exit_code: 130 } });
  });
});

describe('headless without the agents', () => {
  it('an empty prompt is exit 1 with a fix line', async () => {
    sb = sandbox(GOOD_CONFIG);
    const r = await runCli(['-p', '   '], sb.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/fix:/);
  });
});
