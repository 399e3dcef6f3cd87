// Issue 10: `yagent serve` kept one zombie per cancelled run_bash until it exited. A task whose Coding agent runs
// `sleep 300` (with a backgrounded grandchild) is cancelled through attach: its group is gone by PID, and the serve
// process is left with no zombie child, while it keeps running.
import { afterEach, describe, expect, it } from 'vitest';
import { groupMembers, groupOf, noLiveMember, zombieChildren, GONE_DEADLINE_MS } from '../runtime/proc-helpers.js';
import { childReaper, discovered, GOOD_CONFIG, runCli, sandbox, start, until, SERVE_WAIT_MS, withScript, type Sandbox } from './helpers.js';

let sb: Sandbox | undefined;
const children = childReaper();
const started: number[] = [];
afterEach(() => {
  children.reap();
  for (const pgid of started.splice(0)) try { process.kill(-pgid, 'SIGKILL'); } catch { /* gone */ }
  sb?.cleanup();
});

/** `marker`: the second sleep's unique argument, by which the test finds the group on the host (inside the sandbox
 *  `$$` is pid 2 of the command's own PID namespace). */
function script(marker: string, trap: string): string {
  const command = `${trap}sleep 300 & sleep ${marker}`;
  return `
const call = (name, args) => ({ text: '', toolCalls: [{ name, arguments: JSON.stringify(args) }], finishReason: 'tool_calls' });
const say = (text) => ({ text, finishReason: 'stop' });
export default {
  director: [call('delegate_coding', { task: 'run the long command', context_refs: [] }), say('done'), say('done')],
  coding: [call('run_bash', { command: ${JSON.stringify(command)}, is_dangerous: false, timeout_seconds: 600 }), say('done'), say('done')],
};
`;
}

describe('serve reaps what a cancelled run_bash leaves', () => {
  // a command that ignores SIGTERM is only ended by SIGKILL: its exit must still be seen by the thread that spawned it
  it.each([
    ['a plain command', ''],
    ['a command that ignores SIGTERM', "trap '' TERM; "],
  ])('attach cancel mid-run_bash (%s): the group is gone by PID and serve has no zombie child, still running', async (_label, trap) => {
    sb = sandbox(GOOD_CONFIG);
    const marker = `300.${process.pid}${Math.floor(Math.random() * 1e6)}`;
    const serve = start(['serve', '-y'], withScript(sb, script(marker, trap)));
    children.push(serve);
    const info = await discovered(sb);
    const headers = { authorization: `Bearer ${info.token}`, 'content-type': 'application/json' };
    const res = await fetch(`${info.address}/api/start_task`, { method: 'POST', headers, body: JSON.stringify({ prompt: 'run it', workspace: sb.dir }) });
    const task = ((await res.json()) as { task_id: string }).task_id;
    const pgid = await until(() => groupOf(['sleep', marker]), 'run_bash started', SERVE_WAIT_MS);
    started.push(pgid);
    await until(() => (groupMembers(pgid).length >= 2 ? true : undefined), 'the background grandchild started');
    expect((await runCli(['attach', 'cancel', task], sb.env)).code).toBe(0);
    expect(await noLiveMember(pgid, GONE_DEADLINE_MS)).toEqual([]);
    const servePid = serve.pid ?? -1;
    // reaping follows the kill by a moment: poll (bounded) until serve has collected its children
    const left = await until(() => (zombieChildren(servePid).length === 0 ? [] : undefined), 'serve to reap its children', GONE_DEADLINE_MS).catch(() => zombieChildren(servePid));
    expect(left).toEqual([]);
    expect(serve.exitCode).toBe(null);
  });
});
