// The screen outranks agent compute, through the real CLI: `yagent` in a real terminal (tmux) runs its agent and store
// workers SCREEN_NICE below its main thread; `yagent -p` keeps every thread at the process's priority. Read from the
// kernel while the Director's model call is in flight (the scripted model writes the CLI's pid, then stalls).
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SCREEN_NICE } from '../../bin/host/boot-plan.js';
import { BIN, childReaper, collect, GOOD_CONFIG, sandbox, start, until, withScript, type Sandbox } from '../cli/helpers.js';
import { PRELUDE } from '../cli/scripts.js';
import { hasTmux, TmuxPane } from './tmux.js';

const linux = process.platform === 'linux';

/** The Director's call writes the CLI's pid (the scripted model runs in its main thread) and never ends. */
const stalling = (marker: string): string => `${PRELUDE}
import { writeFileSync } from 'node:fs';
const stall = () => (writeFileSync(${JSON.stringify(marker)}, String(process.pid)), { text: 'x', fault: { kind: 'stall', afterEvents: 1 } });
export default { director: times(4, stall) };
`;

/** Each thread's nice (field 19 of /proc/<pid>/task/<tid>/stat), keyed by thread id. */
function threadNice(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`).map(Number)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      out.set(tid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return out;
}

let sb: Sandbox | undefined;
let pane: TmuxPane | undefined;
const reaper = childReaper();
afterEach(async () => {
  reaper.reap();
  try {
    await pane?.stop();
  } finally {
    sb?.cleanup();
    pane = sb = undefined;
  }
});

describe('worker priority in the real CLI', () => {
  it.skipIf(!hasTmux || !linux)('the TUI: agent and store worker threads run SCREEN_NICE below the main thread', async () => {
    sb = sandbox(GOOD_CONFIG);
    const ws = join(sb.dir, 'ws');
    mkdirSync(ws);
    const marker = join(sb.dir, 'pid');
    const env = { ...withScript(sb, stalling(marker)), TERM: 'xterm-256color' };
    const cfg = join(sb.home, 'config', 'config.toml');
    writeFileSync(join(sb.dir, 'run.sh'), `${Object.entries(env).map(([k, v]) => `export ${k}=${JSON.stringify(v ?? '')}`).join('\n')}\n${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} -c ${JSON.stringify(cfg)}\nsleep 60\n`);
    pane = TmuxPane.start(join(sb.dir, 'tmux.sock'), 'tui', ws, `sh ${join(sb.dir, 'run.sh')}`, 100, 30);
    await pane.waitFor((s) => s.includes(' ready │ '), 'the first frame');
    pane.text('go');
    pane.keys('Enter');
    await until(() => (existsSync(marker) ? true : undefined), "the Director's model call");
    const pid = Number(readFileSync(marker, 'utf8'));
    const main = threadNice(pid).get(pid) as number;
    // the Director's worker and the store's, at least (the store's may still be booting when the call starts)
    const lowered = (): number => [...threadNice(pid)].filter(([tid, n]) => tid !== pid && n === Math.min(19, main + SCREEN_NICE)).length;
    await until(() => (lowered() >= 2 ? true : undefined), 'two worker threads below the main thread');
    expect(lowered()).toBeGreaterThanOrEqual(2);
    expect(threadNice(pid).get(pid)).toBe(main);
  }, 60_000);

  it.skipIf(!linux)('`yagent -p`: every thread runs at the process priority', async () => {
    sb = sandbox(GOOD_CONFIG);
    const marker = join(sb.dir, 'pid');
    const child = start(['-p', 'go'], withScript(sb, stalling(marker)), { cwd: sb.dir });
    reaper.push(child);
    const done = collect(child);
    await until(() => (existsSync(marker) ? true : undefined), "the Director's model call");
    const pid = Number(readFileSync(marker, 'utf8'));
    const nice = threadNice(pid);
    expect(nice.size).toBeGreaterThan(3); // the Director's worker is among them
    expect(new Set(nice.values())).toEqual(new Set([nice.get(pid)]));
    child.kill('SIGINT');
    expect((await done).code).toBe(130);
  }, 60_000);
});
