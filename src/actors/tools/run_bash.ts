// run_bash: a shell command in its own process group, inside the OS sandbox where bubblewrap works (sandbox-run.ts);
// the model's is_dangerous flag and words naming places outside the workspace go to authorization (derived from the
// commandParams / dangerFlag tags). A write the sandbox refused is re-run once with that place writable, if approved.
import { z } from 'zod';
import { briefArg, defineTool, fail, ok } from './define.js';
import { runInGroup, type GroupRunResult } from './process-group.js';
import { runSandboxed } from './sandbox-run.js';
import { buildShellEnv } from './shell-env.js';
import type { ToolOutcome } from './types.js';

export const DEFAULT_BASH_TIMEOUT_S = 120;
export const MAX_BASH_TIMEOUT_S = 600;

const schema = z.object({
  command: z.string().min(1).describe('Bash command line, run with `bash -c` in the workspace.'),
  is_dangerous: z.boolean().describe('true if the command deletes, overwrites or changes anything outside the workspace, or is hard to undo.'),
  timeout_seconds: z.number().int().min(1).max(MAX_BASH_TIMEOUT_S).default(DEFAULT_BASH_TIMEOUT_S).describe('Kill the command (and everything it started) after this many seconds.'),
});

export default defineTool({
  name: 'run_bash',
  schema,
  tags: {
    effect: 'shell',
    mutates: true,
    serial: true,
    needsAuth: true,
    pathParams: [],
    commandParams: ['command'],
    dangerFlag: 'is_dangerous',
    truncation: 'head_tail',
    display: 'command',
    brief: (a) => briefArg(a, 'command'),
  },
  async execute(args, ctx) {
    const env = ctx.shellEnv ?? buildShellEnv(process.env);
    const base = { command: args.command, cwd: ctx.workspace, env, timeoutMs: args.timeout_seconds * 1000, signal: ctx.signal };
    const support = (await ctx.sandbox?.support()) ?? null;
    if (support === null || ctx.sandbox === undefined || ctx.boundary === undefined) return report(args, await runInGroup(base), '');
    const sb = { ...base, support, workspace: ctx.workspace, boundary: ctx.boundary.resolved(), home: ctx.boundary.policy.home, writable: ctx.sandbox.writable };
    let run = await runSandboxed(sb);
    let note = '';
    if (run.refused.length > 0 && !run.result.timedOut && !run.result.cancelled && !ctx.signal.aborted) {
      const places = run.refused.join(', ');
      const reasons = run.refused.map((p) => ({ key: `run_bash-write:${p}`, path: p, text: `the sandbox kept ${p} read-only (outside the workspace): run the command again with it writable` }));
      if (ctx.authorize !== undefined && (await ctx.authorize(reasons))) {
        run = await runSandboxed({ ...sb, writable: [...sb.writable, ...run.refused] });
        note = `[the sandbox refused a write to ${places}; the command was run again with it writable (approved)]\n`;
      } else {
        note = `[the sandbox refused a write to ${places}: outside the workspace the file system is read-only for run_bash, and the re-run with it writable was not approved. Work inside the workspace, or the user can approve it, use -y, or list it in [security] sandbox_writable]\n`;
      }
    }
    if (run.deniedPlaces.length > 0) note += `[${run.deniedPlaces.join(', ')}: a denied place (the yagent data root or a secret store), hidden by the sandbox even with -y]\n`;
    return report(args, run.result, note);
  },
});

/** The tool result of a finished command: its status line, output and what the sandbox did. */
function report(args: { command: string; timeout_seconds: number }, r: GroupRunResult, note: string): ToolOutcome {
  const tail = r.killedStragglers ? '\n[background processes still holding the output were killed]' : '';
  if (r.timedOut) {
    return fail('timeout', `Timed out after ${args.timeout_seconds}s; the command and everything it started were killed.\nOutput so far:\n${r.output}`);
  }
  const status = r.exitSignal ? `killed by ${r.exitSignal}` : `exit code ${r.exitCode ?? 'unknown'}`;
  return ok(`${status}\n${note}${r.output}${tail}`, `${args.command.split('\n')[0] ?? ''} (${status})`);
}
