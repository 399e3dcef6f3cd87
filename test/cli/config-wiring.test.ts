// Config keys the CLI must wire: the process-wide LLM gate, removed-key warnings, the store's scheduled GC.
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ResultObjectSchema } from '../../bin/cli/stream-json.js';
import { childReaper, collect, GOOD_CONFIG, project, runCli, sandbox, SERVE_WAIT_MS, start, until, withScript, type Sandbox } from './helpers.js';
import { DELEGATING, parallelDelegations } from './scripts.js';

let sb: Sandbox | undefined;
const children = childReaper();
afterEach(() => {
  children.reap();
  sb?.cleanup();
});

async function peakInFlight(limit: number): Promise<number> {
  sb = sandbox(`${GOOD_CONFIG}\n[llm]\nmax_in_flight_requests = ${limit}\n`);
  const peakFile = join(sb.dir, 'peak.txt');
  const r = await runCli(['-p', 'look at a and b'], withScript(sb, parallelDelegations(peakFile, limit === 1 ? 2_000 : 20_000)), { cwd: project(sb) });
  expect(r.code, r.stderr).toBe(0);
  expect((r.stderr.match(/director → repo/g) ?? []).length).toBe(2);
  const peak = Number(readFileSync(peakFile, 'utf8'));
  sb.cleanup();
  sb = undefined;
  return peak;
}

describe('config wiring of the CLI', () => {
  it('max_in_flight_requests holds across agent workers: 1 never lets two parallel delegations overlap at the model, 2 does', async () => {
    expect(await peakInFlight(1)).toBe(1);
    expect(await peakInFlight(2)).toBe(2);
  });

  it('removed config keys are named with their replacement on stderr at start-up; json stdout stays one clean object', async () => {
    sb = sandbox(`${GOOD_CONFIG}\n[agent]\nmeta_max_steps = 3\n`);
    const r = await runCli(['-p', 'name?', '--output-format', 'json'], withScript(sb, DELEGATING), { cwd: project(sb) });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: config key "agent\.meta_max_steps" was removed: \S/);
    expect(r.stdout).not.toMatch(/meta_max_steps/);
    expect(ResultObjectSchema.parse(JSON.parse(r.stdout)).exit_code).toBe(0);
  });

  it('the store GC is scheduled from [blackboard] ttl: serve prunes a note older than the ttl and keeps a fresh one', async () => {
    sb = sandbox(`${GOOD_CONFIG}\n[blackboard]\nttl = "1h"\n`);
    const dir = join(sb.home, 'notes', 'board-x', 'repo');
    mkdirSync(dir, { recursive: true });
    const old = join(dir, '20200101T000000Z_abcd-1-000001.md');
    const fresh = join(dir, '20200101T000001Z_abcd-1-000002.md');
    writeFileSync(old, '---\nagent: repo\n---\nold\n');
    writeFileSync(fresh, '---\nagent: repo\n---\nfresh\n');
    const threeHoursAgo = (Date.now() - 3 * 3600_000) / 1000;
    utimesSync(old, threeHoursAgo, threeHoursAgo); // older than 1h, far younger than the default week
    const serve = start(['serve'], withScript(sb, 'export default {};'));
    children.push(serve);
    const exited = collect(serve);
    await until(() => (existsSync(old) ? undefined : true), 'the old note swept at start-up', SERVE_WAIT_MS);
    expect(existsSync(fresh)).toBe(true);
    // SIGINT only once serve is up (its handler drains); before that it would kill the process outright
    const run = join(sb.home, 'run');
    await until(() => (existsSync(run) && readdirSync(run).some((n) => n.endsWith('.json')) ? true : undefined), "serve's discovery file", SERVE_WAIT_MS);
    serve.kill('SIGINT');
    expect((await exited).code).toBe(0);
  });
});
