// First contact with the CLI (issue 25 items 10 and 13): --version names its build, a bare prompt, an unknown
// option, and a fresh HOME each get an answer a user can act on.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hasTmux, TmuxPane } from '../tui/tmux.js';
import { BIN, GOOD_CONFIG, ROOT, runCli, sandbox, withScript, type Sandbox } from './helpers.js';

let sb: Sandbox | undefined;
let pane: TmuxPane | undefined;
afterEach(async () => {
  try {
    await pane?.stop();
  } finally {
    pane = undefined;
    sb?.cleanup();
  }
});

describe('yagent --version', () => {
  it('prints the version, the commit and the build time of the build stamp `npm run build` wrote', async () => {
    sb = sandbox();
    const r = await runCli(['--version'], sb.env);
    expect(r.code).toBe(0);
    const stamp = JSON.parse(readFileSync(join(ROOT, 'dist', 'build-stamp.json'), 'utf8')) as { version: string; commit: string; built_at: string };
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(stamp.version).toBe(pkg.version);
    const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    expect(stamp.commit.startsWith(head)).toBe(true);
    expect(Number.isNaN(Date.parse(stamp.built_at))).toBe(false);
    expect(r.stdout).toBe(`${pkg.version} (commit ${stamp.commit}, built ${stamp.built_at})\n`);
  });
});

describe('first start and entry errors', () => {
  it('a fresh HOME is told nothing is configured yet, on the first start and every later one (never "placeholder")', async () => {
    sb = sandbox();
    rmSync(join(sb.home, 'config'), { recursive: true });
    for (let i = 0; i < 2; i++) {
      const r = await runCli(['-p', 'hi'], sb.env, { cwd: sb.dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('yagent: no model provider is configured yet');
      expect(r.stderr).toContain('run `yagent setup`');
      expect(r.stderr).not.toContain('placeholder');
    }
  });

  it('an unknown option is our own error with a did-you-mean and the usage hint, not the parser\'s text', async () => {
    sb = sandbox();
    const r = await runCli(['--frobnicate'], sb.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('yagent: unknown option --frobnicate\n  fix:   run `yagent --help` for the options\n');
    const typo = await runCli(['-p', 'x', '--verbse'], sb.env);
    expect(typo.stderr).toContain('unknown option --verbse (did you mean --verbose?)');
    const sub = await runCli(['batch', 't.jsonl', '--paralel', '2'], sb.env);
    expect(sub.stderr).toContain('unknown option --paralel (did you mean --parallel?)');
    expect(sub.stderr).toContain('yagent batch --help');
    const missing = await runCli(['-p'], sb.env);
    expect(missing.stderr).toContain('yagent: -p, --prompt needs a value');
    for (const x of [r, typo, sub, missing]) expect(x.stderr).not.toMatch(/To specify a positional argument|argument missing/);
  });

  it('a bare prompt without a terminal says to use -p; a slip of a sub-command gets a did-you-mean', async () => {
    sb = sandbox();
    const r = await runCli(['fix it'], sb.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('a prompt without -p opens the interactive UI, which needs a terminal');
    expect(r.stderr).toContain('yagent -p "fix it"');
    const slip = await runCli(['sesions'], sb.env);
    expect(slip.code).toBe(1);
    expect(slip.stderr).toContain('unknown command "sesions" (did you mean `yagent sessions`?)');
  });

  it('an unterminated TOML string is named as such, with its line and column', async () => {
    sb = sandbox(GOOD_CONFIG.replace('model = "m"', 'model = "m'));
    const r = await runCli(['-p', 'hi'], sb.env, { cwd: sb.dir });
    expect(r.code).toBe(2);
    const line = GOOD_CONFIG.split('\n').findIndex((l) => l.startsWith('model = ')) + 1;
    expect(r.stderr).toContain(`unterminated string: the " opened at line ${line}, column 9 is not closed before the end of the line`);
    expect(r.stderr).toContain(`config.toml:${line}:9`);
    expect(r.stderr).not.toContain('control characters');
  });

  it('a typo of a required key names the missing key and the typo, with a did-you-mean', async () => {
    sb = sandbox(GOOD_CONFIG.replace('api_base_url =', 'api_base_ur ='));
    const r = await runCli(['-p', 'hi'], sb.env, { cwd: sb.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('provider "p" has no api_base_url, but has an unknown key "api_base_ur": did you mean "api_base_url"?');
  });
});

describe('yagent "PROMPT" on a terminal', () => {
  it.skipIf(!hasTmux)('opens the interactive UI and sends that prompt as its first turn', async () => {
    sb = sandbox(GOOD_CONFIG);
    const ws = join(sb.dir, 'ws');
    mkdirSync(ws);
    const env = { ...withScript(sb, "export default { director: [{ text: 'Fixed nothing, but here.', finishReason: 'stop' }] };\n"), TERM: 'xterm-256color' };
    writeFileSync(join(sb.dir, 'run.sh'), `${Object.entries(env).map(([k, v]) => `export ${k}=${JSON.stringify(v ?? '')}`).join('\n')}\n${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "fix it"\necho "EXITED $?"\nsleep 60\n`);
    pane = TmuxPane.start(join(sb.dir, 'tmux.sock'), 'tui', ws, `sh ${join(sb.dir, 'run.sh')}`, 100, 30);
    const screen = await pane.waitFor((s) => s.includes('Fixed nothing, but here.') && s.includes(' ready │ '), 'the answer to the prompt given on the command line', 40_000);
    expect(screen).toContain('fix it');
    pane.text('/quit');
    pane.keys('Enter');
    await pane.waitFor((s) => s.includes('EXITED 0'), 'the exit');
  }, 60_000);
});
