// A resumed turn killed (kill -9) while it continues an interrupted delegation, through the real CLI (only the model is
// scripted): the next --continue still carries the session's earlier turns, and the delegation being continued is
// continued again rather than forgotten (product rule: a session is never lost).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childReaper, collect, GOOD_CONFIG, project, runCli, sandbox, start, until, withScript, type Sandbox } from './helpers.js';
import { PRELUDE } from './scripts.js';

let sb: Sandbox | undefined;
const reaper = childReaper();
afterEach(() => {
  reaper.reap();
  sb?.cleanup();
});

/** Coding runs one side effect, then stalls at its next request, once per file in `stalls` (each announced by creating
 *  it), and exits after. The Director delegates until the delegation reports, then says whether it still reads the
 *  first turn's prompt and the killed turn's own prompt as user messages. */
function script(side: string, stalls: string[]): string {
  return `${PRELUDE}
import { existsSync, writeFileSync } from 'node:fs';
const all = (req) => JSON.stringify(req.body.messages || []);
const stalls = ${JSON.stringify(stalls)};
const coding = (req) => {
  if (!(req.body.messages || []).some((m) => m.role === 'tool')) return call('run_bash', { command: 'echo ran >> ${side}', is_dangerous: false });
  const next = stalls.find((f) => !existsSync(f));
  if (next) { writeFileSync(next, 'yes'); return { text: 'x', fault: { kind: 'stall', afterEvents: 1 } }; }
  return call('agent_exit', { conclusion: 'continued to the end', facts: [], artifacts: [], status: 'ok' });
};
const director = (req) => {
  if (!all(req).includes('continued to the end')) return call('delegate_coding', { task: 'run the side effect', context_refs: [] });
  const prompts = (req.body.messages || []).filter((m) => m.role === 'user' && typeof m.content === 'string').map((m) => m.content);
  return say('first: ' + prompts.some((p) => p.startsWith('FIRST-TURN-PROMPT')) + ', second: ' + prompts.includes('second prompt'));
};
export default { director: times(20, director), coding: times(20, coding) };
`;
}

describe.skipIf(process.platform !== 'linux')('a resumed turn killed during recovery', () => {
  it('kill -9 while the resumed turn continues the delegation: the next --continue keeps the first turn and that delegation', async () => {
    sb = sandbox(GOOD_CONFIG);
    const ws = project(sb);
    const side = join(ws, 'side.txt');
    const stalls = [join(sb.dir, 'stalled-1'), join(sb.dir, 'stalled-2')];
    const env = withScript(sb, script(side, stalls));
    const killAt = async (args: string[], stall: string): Promise<void> => {
      const child = start(args, env, { cwd: ws });
      reaper.push(child);
      const done = collect(child);
      await until(() => (existsSync(stall) ? true : undefined), `the Coding request that stalls (${stall})`, 120_000);
      child.kill('SIGKILL');
      await done;
    };
    // turn 1: killed while its delegation runs; turn 2 (--continue): killed while it continues that delegation, at the
    // continued delegation's first model request, before the Director's own first request
    await killAt(['-p', 'FIRST-TURN-PROMPT: do the work', '-y'], stalls[0] ?? '');
    await killAt(['-p', 'second prompt', '--continue', '-y'], stalls[1] ?? '');
    const r = await runCli(['-p', 'third prompt', '--continue', '-y'], env, { cwd: ws });
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('first: true, second: true');
    // the delegation was continued from its rollout each time, never started again
    expect(readFileSync(side, 'utf8')).toBe('ran\n');
  }, 240_000);
});
