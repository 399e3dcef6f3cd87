// The TUI end to end in a real terminal (tmux): `yagent -c CFG` against the scripted model; only the model is fake.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, childReaper, GOOD_CONFIG, runCli, sandbox, start, withScript, type Sandbox } from '../cli/helpers.js';
import { PRELUDE } from '../cli/scripts.js';
import { hasTmux, TmuxPane } from './tmux.js';

/** The Director answers by the latest keyword prompt: ANSWER, ASK (a question), WRITE (a nested approval), STALL (only a cancel ends it),
 *  RECALL (how many keyword prompts the conversation holds: more than one only when the turn continued the session). */
function script(target: string): string {
  return `${PRELUDE}
const users = (req) => (req.body.messages || []).map((m, i) => ({ m, i })).filter(({ m }) => m.role === 'user' && typeof m.content === 'string' && /ANSWER|WRITE|STALL|ASK|RECALL/.test(m.content));
const director = (req) => {
  const last = users(req).pop();
  const text = last ? last.m.content : '';
  if (text.includes('RECALL')) return say('I remember ' + users(req).length + ' prompts.');
  if (text.includes('STALL')) return { text: 'thinking…', fault: { kind: 'stall', afterEvents: 1 } };
  if (text.includes('ASK')) {
    const tool = (req.body.messages || []).slice(last.i).find((m) => m.role === 'tool');
    return tool ? say('Answer was: ' + tool.content) : call('ask_user_for_help', { question: 'Which color?' });
  }
  if (text.includes('WRITE')) {
    const delegated = (req.body.messages || []).slice(last.i).some((m) => m.role === 'tool');
    return delegated ? say('Coding finished.') : call('delegate_coding', { task: 'write the report file', context_refs: [] });
  }
  return say('The answer is 42.');
};
export default {
  director: times(40, director),
  coding: [
    call('create_file', { path: ${JSON.stringify(target)}, content: 'written after approval\\n' }),
    call('agent_exit', { conclusion: 'wrote the file', facts: [], artifacts: [${JSON.stringify(target)}], status: 'ok' }),
    ...times(3, say('done')),
  ],
};
`;
}

/** Processes whose command line names the sandbox (the CLI and anything it started). */
function processesOf(dir: string): string[] {
  const ps = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  return ps.split('\n').filter((l) => l.includes(dir) && l.includes('yagent.js') && !l.includes('tmux'));
}

let sb: Sandbox | undefined;
const reaper = childReaper();
let pane: TmuxPane | undefined;
afterEach(async () => {
  reaper.reap();
  try {
    await pane?.stop();
  } finally {
    sb?.cleanup();
    pane = undefined;
    sb = undefined;
  }
});

/** Boots `yagent -c CFG [args]` in tmux (100x30) in a fresh sandbox; returns the pane and the approval target. */
async function boot(args = '', before?: (env: NodeJS.ProcessEnv, ws: string) => Promise<void>): Promise<{ pane: TmuxPane; target: string }> {
  sb = sandbox(`${GOOD_CONFIG}\n[tui.keybindings]\napprove_once = "a"\n`);
  const ws = join(sb.dir, 'ws');
  mkdirSync(ws);
  const target = join(sb.dir, 'outside', 'report.txt');
  const env = withScript(sb, script(target));
  const cfg = join(sb.home, 'config', 'config.toml');
  await before?.(env, ws);
  writeFileSync(join(sb.dir, 'run.sh'), `${Object.entries(env).map(([k, v]) => `export ${k}=${JSON.stringify(v ?? '')}`).join('\n')}\nexport TERM=xterm-256color\n${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} -c ${JSON.stringify(cfg)} ${args}\necho "EXITED $?"\nsleep 60\n`);
  pane = TmuxPane.start(join(sb.dir, 'tmux.sock'), 'tui', ws, `sh ${join(sb.dir, 'run.sh')}`, 100, 30);
  await pane.waitFor((s) => s.includes(' ready │ '), 'the first frame');
  return { pane, target };
}

describe('TUI in a real terminal', () => {
  it.skipIf(!hasTmux)('--attach: the TUI drives a running `yagent serve` (answer, a nested approval by key, a follow-up turn, an attach send taken mid-turn, /model, /quit)', async () => {
    const { pane, target } = await boot('--attach', async (env) => {
      const serve = start(['serve'], env);
      reaper.push(serve);
      const runDir = join(env['YAGENT_HOME'] ?? '', 'run');
      const end = Date.now() + 20_000;
      while (!(existsSync(runDir) && readdirSync(runDir).some((n) => /^supervisor-\d+\.json$/.test(n)))) {
        if (Date.now() > end) throw new Error('serve wrote no discovery file');
        await new Promise((r) => setTimeout(r, 50));
      }
    });
    expect(pane.capture()).toMatch(/│ http:\/\/127\.0\.0\.1:\d+/);
    pane.text('ANSWER attached');
    pane.keys('Enter');
    await pane.waitFor((s) => s.includes('The answer is 42.') && s.includes(' ready │ '), 'the attached answer');
    // /setup cannot rewrite the config of the serve process: the dialog says why and what to do
    pane.text('/setup');
    pane.keys('Enter');
    await pane.waitFor((s) => s.includes('/setup cannot reconfigure an attached') && s.includes('(pid '), 'the attached /setup answer');
    pane.keys('x');
    await pane.waitFor((s) => !s.includes('/setup cannot'), 'the dialog closed');
    pane.text('WRITE the report');
    pane.keys('Enter');
    await pane.waitFor((s) => s.includes('coding needs approval'), 'the attached approval dialog');
    pane.keys('a');
    await pane.waitFor((s) => s.includes('Coding finished.') && s.includes(' ready │ '), 'the approved attached turn');
    expect(existsSync(target)).toBe(true);
    // follow-up turns continue the session in the supervisor (start_task session.resume)
    pane.text('RECALL attached');
    pane.keys('Enter');
    await pane.waitFor((s) => s.includes('I remember 3 prompts.') && s.includes(' ready │ '), 'the attached follow-up turn');
    // another client's `attach send` to the running turn: shown queued here, taken at the Director's next step (its
    // answer is to that message, in the same turn)
    pane.text('ASK again');
    pane.keys('Enter');
    await pane.waitFor((s) => s.includes('Which color?'), 'the attached question');
    const tasks = JSON.parse((await runCli(['attach', 'tasks', '--json'], sb?.env ?? {})).stdout) as { tasks: { taskId: string; state: string }[] };
    const running = tasks.tasks.find((t) => t.state === 'running')?.taskId ?? '';
    expect((await runCli(['attach', 'send', running, 'ANSWER from another client'], sb?.env ?? {})).stdout).toContain('queued: the Director reads it at its next step');
    await pane.waitFor((s) => s.includes('⧗ queued: ANSWER from another client'), 'the queued message from attach send');
    pane.text('blue');
    pane.keys('Enter');
    const screen = await pane.waitFor((s) => s.includes('› ANSWER from another client') && s.includes(' ready │ '), 'the message taken in the same turn');
    expect(screen).not.toContain('⧗ queued: ANSWER from another client');
    expect(screen.lastIndexOf('The answer is 42.')).toBeGreaterThan(screen.indexOf('› ANSWER from another client'));
    expect(tasks.tasks.length).toBe((JSON.parse((await runCli(['attach', 'tasks', '--json'], sb?.env ?? {})).stdout) as { tasks: unknown[] }).tasks.length);
    // /model reaches the supervisor (start_task provider): the next request goes to provider p
    pane.text('/model p');
    pane.keys('Enter');
    pane.text('ANSWER on p');
    pane.keys('Enter');
    await pane.waitFor((s) => s.includes(' ready │ p/m │ '), 'the attached turn on provider p', 40_000);
    pane.text('/quit');
    pane.keys('Enter');
    await pane.waitFor((s) => s.includes('EXITED 0'), 'the exit');
  }, 90_000);

  it.skipIf(!hasTmux)('a second Ctrl-C within 2 s quits, draining the running task; no process is left', async () => {
    const { pane } = await boot();
    pane.text('STALL now');
    pane.keys('Enter');
    await pane.waitFor((s) => s.includes(' running │ '), 'the stalled turn');
    pane.keys('C-c');
    pane.keys('C-c');
    await pane.waitFor((s) => s.includes('EXITED 0'), 'the exit');
    expect(processesOf(sb?.dir ?? '')).toEqual([]);
  }, 60_000);

  it.skipIf(!hasTmux)('answers; /model switches the model; a [tui.keybindings] entry replaces the default key, end to end (approval by key); a question is answered; Ctrl-T shows the live tree; Ctrl-P pauses; Ctrl-C cancels; /quit leaves no process', async () => {
    const { pane, target } = await boot();
    pane.text('ANSWER please');
    pane.keys('Enter');
    let screen = await pane.waitFor((s) => s.includes('done (plain_text)'), 'the first turn to end');
    expect(screen).toContain('› ANSWER please');
    expect(screen).toContain('The answer is 42.');
    const session = /│ session (\S+)/.exec(screen)?.[1] ?? '';
    expect(session).not.toBe('');

    // /resume: a picker over this workspace's sessions (the store's ledger); a digit picks one
    pane.text('/resume');
    pane.keys('Enter');
    screen = await pane.waitFor((s) => s.includes('resume: press 1-9'), 'the session picker');
    expect(screen).toMatch(/1 {2}\d\d-\d\d \d\d:\d\d {2}1 turn {2}ANSWER please/);
    pane.keys('1');
    await pane.waitFor((s) => s.includes(`· resuming session ${session}`), 'the picked session');

    // /model: a picker of the configured providers and the models their servers list (p's server is down: said)
    pane.text('/model');
    pane.keys('Enter');
    screen = await pane.waitFor((s) => s.includes('scripted · scripted-model (configured)'), 'the model picker');
    expect(screen).toContain('▸ ● auto — routing decides');
    expect(screen).toMatch(/p · m \(configured\) — GET \/models failed/);
    pane.keys('Escape');
    await pane.waitFor((s) => !s.includes('Enter switches'), 'the picker closing');
    // /model NAME: the next request goes to provider p (the config's unreachable one), then back to routing
    pane.text('/model p');
    pane.keys('Enter');
    pane.text('ANSWER again');
    pane.keys('Enter');
    screen = await pane.waitFor((s) => s.includes(' ready │ p/m │ '), 'the turn on provider p', 40_000);
    pane.text('/model auto');
    pane.keys('Enter');

    pane.text('WRITE the report');
    pane.keys('Enter');
    screen = await pane.waitFor((s) => s.includes('coding needs approval'), 'the approval dialog');
    expect(screen).toContain('a once · s session · p project · n deny');
    // the default key no longer approves (the binding was replaced, not aliased): had `y` approved, the dialog would
    // have closed and the `a` after it been typed into the input box
    pane.keys('y');
    pane.keys('a');
    screen = await pane.waitFor((s) => s.includes('Coding finished.') && s.includes('done ('), 'the approved turn');
    expect(screen.match(/✓ approved \(once\)/g)).toHaveLength(1);
    expect(screen).toContain('\ntype a task, Enter sends · /help');
    expect(existsSync(target)).toBe(true);

    pane.text('ASK me');
    pane.keys('Enter');
    await pane.waitFor((s) => s.includes('director asks') && s.includes('Which color?'), 'the question dialog');
    pane.text('blue');
    pane.keys('Enter');
    screen = await pane.waitFor((s) => s.includes('Answer was:') && s.includes('done ('), 'the answered question');
    expect(screen).toMatch(/Answer was: .*blue/);

    pane.text('STALL now');
    pane.keys('Enter');
    await pane.waitFor((s) => s.includes(' running │ '), 'the stalled turn');
    // typing while it works is accepted and shown as queued; typed once the Director's call is under way (its
    // waiting line), it waits for a next step the stalled Director never reaches
    await pane.waitFor((s) => s.includes('director waiting'), 'the stalled call');
    pane.text('and the docs');
    pane.keys('Enter');
    await pane.waitFor((s) => s.includes('⧗ queued: and the docs'), 'the queued message');
    // Ctrl-T: the supervisor's live tree (the task and its Director), the sidebar's Activity from the same tree
    pane.keys('C-t');
    screen = await pane.waitFor((s) => s.includes('┌─ delegation tree') && /task:\S+ running/.test(s) && s.includes('director running'), 'the delegation tree');
    pane.keys('Escape');
    await pane.waitFor((s) => !s.includes('┌─ delegation tree'), 'the tree closing');
    pane.keys('C-p');
    await pane.waitFor((s) => s.includes(' paused │ '), 'Ctrl-P pausing');
    pane.keys('C-p');
    await pane.waitFor((s) => s.includes(' running │ '), 'Ctrl-P continuing');
    pane.keys('C-c');
    screen = await pane.waitFor((s) => s.includes('cancelled: the queued mes'), 'the cancel');
    expect(screen).toContain('— task ended: cancelled');
    // cancelled: the queued message was not sent, it is back in the input box (Esc clears it)
    expect(screen).toContain('\n> and the docs');
    expect(screen).not.toContain('⧗ queued: and the docs');
    pane.keys('Escape');
    // the Escape is read before '/quit' is typed: read together they are one Alt-/ key, and the '/' is lost
    await pane.waitFor((s) => !s.includes('\n> and the docs'), 'the input box cleared');

    pane.text('/quit');
    pane.keys('Enter');
    await pane.waitFor((s) => s.includes('EXITED 0'), 'the exit');
    expect(processesOf(sb?.dir ?? '')).toEqual([]);
  }, 90_000);
});
