// Issue 22 items 1 and 2 end to end (`yagent -p` as a real subprocess, only the model scripted): every case of the
// issue, once with the OS sandbox (bubblewrap, the default) and once without it (`sandbox = "off"`: the word check
// alone, so a case that gets through there fails the test when the parser's evaluation is removed), plus what only
// the sandbox stops (the README's old "not a sandbox" class) and the one start-up line where bubblewrap is missing.
// The oracle is what the model was sent (each request the fake provider received) and the files on disk.
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeSandbox } from '../../src/actors/tools/sandbox-probe.js';
import { runCli, sandbox, until, withScript, type Sandbox } from './helpers.js';
import { PRELUDE } from './scripts.js';
import { KEY_CONFIG } from './exfil-helpers.js';
import { GONE_DEADLINE_MS } from '../runtime/proc-helpers.js';

const bwrap = await probeSandbox(process.env);
if (!bwrap.ok && process.env.CI === 'true') throw new Error(`CI=true but run_bash has no sandbox here: ${bwrap.reason}`);

const KEY = 'zz-provider-env-key-0123456789';
const LITERAL = 'zz-config-literal-key-0123456789';
const SSH = 'zz-ssh-private-key-0123';
const NETRC = 'zz-netrc-password-0123';
const DOTENV = 'zz-outside-dotenv-0123';
const OUTSIDE = 'zz-outside-file-0123';
const SECRETS = [KEY, LITERAL, SSH, NETRC, DOTENV];

const config = (security: string): string => `${KEY_CONFIG}
[global.llm.providers.spare]
api_base_url = "http://127.0.0.1:9/v1"
model = "m"
api_key = "${LITERAL}"
${security}`;

interface Fx {
  sb: Sandbox;
  ws: string;
  home: string;
  env: NodeJS.ProcessEnv;
  log: string;
}

const made: Sandbox[] = [];
afterEach(() => {
  for (const sb of made.splice(0)) sb.cleanup();
});

/** HOME (a directory of its own: the CLI's TMPDIR, with the scripted config copy, stays outside it) holds the data
 *  root at ~/.yagent (so `~/.yag*` names it), the usual secret stores, an outside tree with a `.env`, and the
 *  workspace with symlinks out (as a cloned repository may). */
function fixture(security: string): Fx {
  const sb = sandbox();
  made.push(sb);
  const home = join(sb.dir, 'home');
  const dataRoot = join(home, '.yagent');
  mkdirSync(join(dataRoot, 'config'), { recursive: true });
  writeFileSync(join(dataRoot, 'config', 'config.toml'), config(security), { mode: 0o600 });
  mkdirSync(join(home, '.ssh'));
  writeFileSync(join(home, '.ssh', 'id_rsa'), SSH);
  writeFileSync(join(home, '.netrc'), NETRC);
  mkdirSync(join(home, 'outside'));
  writeFileSync(join(home, 'outside', 'secret.txt'), OUTSIDE);
  writeFileSync(join(home, 'outside', '.env'), DOTENV);
  const ws = join(home, 'ws');
  mkdirSync(ws);
  writeFileSync(join(ws, 'package.json'), '{"name":"fixture"}\n');
  symlinkSync('../outside/secret.txt', join(ws, 'lnk'));
  symlinkSync('../outside', join(ws, 'dl'));
  const env = { ...sb.env, HOME: home, YAGENT_HOME: dataRoot, YAGENT_NOTES_ROOT: join(dataRoot, 'notes'), LLM_ACCESS: KEY };
  return { sb, ws, home, env, log: join(sb.dir, 'requests.jsonl') };
}

/** Director → coding; coding runs each command with run_bash, then exits; every coding request is logged. */
function runsCommands(commands: readonly string[], log: string): string {
  const seen = (step: string): string => `(req) => (appendFileSync(${JSON.stringify(log)}, JSON.stringify(req.body) + '\\n'), ${step})`;
  const calls = commands.map((c) => seen(`call('run_bash', ${JSON.stringify({ command: c, is_dangerous: false })})`));
  return `${PRELUDE}
import { appendFileSync } from 'node:fs';
export default {
  director: [call('delegate_coding', { task: 'do it', context_refs: [] }), ...times(6, say('Done.'))],
  coding: [${calls.join(', ')}, ${seen("call('agent_exit', { conclusion: 'done', facts: [], artifacts: [], status: 'ok' })")}, ...times(3, say('done'))],
};
`;
}

/** One CLI run of `commands`; the tool results the model got back, in order, and everything the model was sent. */
async function runAll(fx: Fx, commands: readonly string[], yolo: boolean): Promise<{ code: number | null; stderr: string; results: string[]; sent: string }> {
  const args = ['-p', 'go', '--output-format', 'json', ...(yolo ? ['-y'] : [])];
  const script = withScript(fx.sb, runsCommands(commands, fx.log)).YAGENT_FAKE_SCRIPT;
  const r = await runCli(args, { ...fx.env, YAGENT_FAKE_SCRIPT: script }, { cwd: fx.ws });
  const sent = existsSync(fx.log) ? readFileSync(fx.log, 'utf8') : '';
  const last = sent.trim().split('\n').pop() ?? '{}';
  const messages = (JSON.parse(last) as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  const results = messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
  return { code: r.code, stderr: r.stderr, results, sent };
}

const ITEM1 = [
  String.raw`cat \.\./outside/secret.txt`, 'cat {..,nope}/outside/secret.txt', 'cat ~+/../outside/secret.txt', 'cat lnk*', 'cat d?/secret.txt', String.raw`cat d\l/secret.txt`,
  'ln -s $(dirname $PWD) up', String.raw`echo x > \.\./outside/x`, 'touch {..,.}/outside/x', String.raw`git -C \.\./outside init`,
];
/** Not asked: the link of the step before was never made, so the glob matches nothing (the shell agrees). */
const TWO_STEP = 'cat u?/outside/secret.txt';

const ITEM2 = [
  String.raw`cat ~/.s\sh/id_rsa`, 'cat ~/.ss?/id_rsa', 'cat ~/.s*/id_rsa', 'cat ~/{.ssh,x}/id_rsa', String.raw`cat ~/.yagen\t/config/config.toml`, 'cat ~/.yag*/config/config.toml',
  'cat ~/.net*', 'cat ../outside/.en*', String.raw`cat /proc/$PPID/e\nviron`, 'cat /proc/$PPID/e{n,}viron', 'cat ~/.*/*',
  String.raw`echo key >> ~/.s\sh/authorized_keys`, 'echo k >> ~/.yag*/config/config.toml',
];
const GREP_HOME = 'grep -r zz- ~';

for (const mode of ['auto', 'off'] as const) {
  const security = mode === 'off' ? '\n[security]\nsandbox = "off"\n' : '';
  const needsBwrap = mode === 'auto' && !bwrap.ok;

  describe.skipIf(needsBwrap)(`sandbox = "${mode}": the word check reads words as bash expands them`, () => {
    it('item 1 without -y: every word that reaches outside is asked (exit 3), nothing outside is read or written', async () => {
      const fx = fixture(security);
      const r = await runAll(fx, [...ITEM1, TWO_STEP], false);
      expect(r.code).toBe(3);
      expect(r.results).toHaveLength(ITEM1.length + 1);
      for (const [i, c] of ITEM1.entries()) expect(r.results[i], c).toContain('authorization_unavailable');
      expect(r.sent).not.toContain(OUTSIDE);
      expect(readdirSync(join(fx.home, 'outside')).sort()).toEqual(['.env', 'secret.txt']);
      expect(existsSync(join(fx.ws, 'up'))).toBe(false);
    });

    it('item 2 with -y: every denied place is refused whatever the spelling, and no secret reaches the model', async () => {
      const fx = fixture(security);
      const r = await runAll(fx, [...ITEM2, GREP_HOME], true);
      expect(r.code).toBe(0);
      expect(r.results).toHaveLength(ITEM2.length + 1);
      for (const [i, c] of ITEM2.entries()) expect(r.results[i], c).toContain('access_denied');
      // `grep -r x ~`: refused without the sandbox (~ holds the stores); with it, it runs and finds them hidden
      expect(r.results[ITEM2.length]).toContain(mode === 'off' ? 'access_denied' : 'exit code');
      for (const s of SECRETS) expect(r.sent, s).not.toContain(s);
      expect(existsSync(join(fx.home, '.ssh', 'authorized_keys'))).toBe(false);
      expect(readFileSync(join(fx.home, '.yagent', 'config', 'config.toml'), 'utf8')).not.toMatch(/^k$/m);
    });
  });
}

describe.skipIf(!bwrap.ok)('what only the sandbox stops (the old "not a sandbox" class), with -y', () => {
  it('a path built at run time, `cd ~`, `ps eww $PPID`: the stores stay hidden, yagent’s environment out of sight', async () => {
    const fx = fixture('');
    const r = await runAll(fx, [
      'cd ~ && cat .ssh/id_rsa .netrc outside/.env .yagent/config/config.toml',
      'cat $(printf %s "$HOME")/.ssh/id_rsa',
      'ps eww $PPID; cat /pro$(echo c)/1/environ | tr "\\0" "\\n"',
      'echo "pid=$$"',
    ], true);
    expect(r.code).toBe(0);
    for (const s of SECRETS) expect(r.sent, s).not.toContain(s);
    expect(r.results[3]).toContain('pid=2\n');
  });

  it('nothing the command starts outlives it, setsid included', async () => {
    const fx = fixture('');
    const r = await runAll(fx, ['setsid sleep 3919.5 </dev/null >/dev/null 2>&1 & echo started'], true);
    expect(r.results[0]).toContain('started');
    const alive = (): number[] => readdirSync('/proc').filter((n) => /^\d+$/.test(n)).filter((n) => {
      try {
        return readFileSync(`/proc/${n}/cmdline`, 'utf8') === 'sleep\x003919.5\x00';
      } catch {
        return false;
      }
    }).map(Number);
    expect(await until(() => (alive().length === 0 ? true : undefined), 'the setsid sleep to be gone', GONE_DEADLINE_MS)).toBe(true);
  });
});

/** A PATH with every program of this one except bwrap (symlinks): bubblewrap "not installed". */
function pathWithoutBwrap(dir: string): string {
  const bin = join(dir, 'bin-without-bwrap');
  mkdirSync(bin);
  for (const d of (process.env.PATH ?? '').split(delimiter)) {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      continue;
    }
    for (const n of names) if (n !== 'bwrap' && !existsSync(join(bin, n))) symlinkSync(join(d, n), join(bin, n));
  }
  return bin;
}

describe('where bubblewrap is missing', () => {
  it('start-up says so in one line and the shell runs bare; sandbox = "off" says nothing', async () => {
    const fx = fixture('');
    fx.env.PATH = pathWithoutBwrap(fx.sb.dir);
    const r = await runAll(fx, ['echo "pid=$$"'], true);
    expect(r.code).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.includes('no OS sandbox'));
    expect(lines).toEqual([expect.stringMatching(/^yagent: no OS sandbox for run_bash: bubblewrap \(bwrap\) is not installed .*the word check is the only layer/)]);
    expect(r.results[0]).not.toContain('pid=2\n');
    const off = fixture('\n[security]\nsandbox = "off"\n');
    off.env.PATH = fx.env.PATH;
    expect((await runAll(off, ['true'], true)).stderr).not.toContain('no OS sandbox');
  });
});
