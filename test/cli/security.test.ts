// Issue 10 end to end (`yagent -p` as a real subprocess, only the model scripted): an outside read in a run that
// cannot ask exits 3 with nothing read; with -y the data root stays denied and run_bash's `env` lacks the key.
// The oracle is every file the run left under the data root (rollouts, notes, logs), the config excepted.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { project, ROOT, runCli, sandbox, withScript, type Sandbox } from './helpers.js';
import { KEY_CONFIG } from './exfil-helpers.js';

const KEY = 'sk-env-provider-key-0123456789';
const LITERAL = 'sk-config-literal-key-0123456789';
const OUTSIDE = 'outside-the-workspace-0123456789';
const CONFIG = `${KEY_CONFIG}
[global.llm.providers.spare]
api_base_url = "http://127.0.0.1:9/v1"
model = "m"
api_key = "${LITERAL}"
`;

const PRELUDE = `
const call = (name, args) => ({ text: '', toolCalls: [{ name, arguments: JSON.stringify(args) }], finishReason: 'tool_calls' });
const say = (text) => ({ text, finishReason: 'stop' });
const times = (n, step) => Array.from({ length: n }, () => step);
`;

/** Director → coding; coding makes `calls` one per step, then exits. With `log`, every request the model receives
 *  is appended to it (the fake provider runs in the CLI process): what the model saw, before any redaction. */
function codingDoes(calls: { name: string; args: Record<string, unknown> }[], log?: string): string {
  const seen = (step: string): string => (log === undefined ? step : `(req) => (appendFileSync(${JSON.stringify(log)}, JSON.stringify(req.body) + '\\n'), ${step})`);
  return `${PRELUDE}
import { appendFileSync } from 'node:fs';
export default {
  director: [call('delegate_coding', { task: 'do it', context_refs: [] }), ...times(6, say('Done.'))],
  coding: [${calls.map((c) => seen(`call(${JSON.stringify(c.name)}, ${JSON.stringify(c.args)})`)).join(', ')},
    ${seen("call('agent_exit', { conclusion: 'done', facts: [], artifacts: [], status: 'ok' })")}, ...times(3, say('done'))],
};
`;
}

/** Files under the data root (config excepted) holding `needle`. */
function leaks(sb: Sandbox, needle: string): string[] {
  const hits: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (p !== join(sb.home, 'config')) walk(p);
      } else if (e.isFile() && readFileSync(p, 'utf8').includes(needle)) hits.push(p);
    }
  };
  walk(sb.home);
  return hits;
}

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

function setup(): { sb: Sandbox; ws: string; outside: string } {
  const s = sandbox(CONFIG);
  const ws = project(s, { 'package.json': '{"name":"fixture"}\n' });
  const outside = join(s.dir, 'outside.txt');
  writeFileSync(outside, `${OUTSIDE}\n`);
  s.env.LLM_ACCESS = KEY;
  return { sb: s, ws, outside };
}

describe('the security boundary through the CLI', () => {
  it('an outside read in a run that cannot ask: exit 3, needs_approval, and nothing of the file reaches the rollout', async () => {
    const f = setup();
    sb = f.sb;
    const seen = join(f.sb.dir, 'requests.jsonl');
    const r = await runCli(['-p', 'read it', '--output-format', 'json'], withScript(f.sb, codingDoes([{ name: 'read_file', args: { path: '../outside.txt' } }], seen)), { cwd: f.ws });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout).needs_approval.join('\n')).toMatch(/read_file/);
    expect(leaks(f.sb, OUTSIDE)).toEqual([]);
    expect(readFileSync(seen, 'utf8')).not.toContain(OUTSIDE);
  });

  it('with -y the data root stays denied and run_bash `env` shows no key: nothing secret reaches the model or the rollout', async () => {
    const f = setup();
    sb = f.sb;
    const seen = join(f.sb.dir, 'requests.jsonl');
    const script = codingDoes([
      { name: 'read_file', args: { path: join(f.sb.home, 'config', 'config.toml') } },
      { name: 'run_bash', args: { command: 'env', is_dangerous: false } },
      // the shell's parent is yagent itself, whose environment holds the key
      { name: 'run_bash', args: { command: 'tr "\\0" "\\n" < /proc/$PPID/environ', is_dangerous: false } },
      { name: 'read_file', args: { path: '/proc/self/environ' } },
      { name: 'run_bash', args: { command: 'cat $YAGENT_HOME/config/config.toml', is_dangerous: false } },
      { name: 'read_file', args: { path: '../outside.txt' } },
    ], seen);
    const r = await runCli(['-p', 'leak it', '-y', '--output-format', 'json'], withScript(f.sb, script), { cwd: f.ws });
    expect(r.code).toBe(0);
    // the store redacts what it writes, so the rollout alone cannot tell: the model's own requests must lack the key
    const requests = readFileSync(seen, 'utf8');
    expect(requests).toMatch(/exit code 0/); // the env output did reach the model
    expect(requests).toContain('YAGENT_HOME=');
    expect(requests).not.toContain(KEY);
    expect(requests).not.toContain(LITERAL);
    expect(requests).not.toContain('LLM_ACCESS=');
    expect(leaks(f.sb, KEY)).toEqual([]);
    expect(leaks(f.sb, LITERAL)).toEqual([]);
    // the outside read was allowed by -y and recorded: the oracle sees rollouts
    expect(leaks(f.sb, OUTSIDE).length).toBeGreaterThan(0);
    expect(leaks(f.sb, 'access_denied').length).toBeGreaterThan(0);
  });

  it('--help and the README say it plainly: without -y yagent asks; run_bash is sandboxed, and only the fallback is not', async () => {
    const s = sandbox(CONFIG);
    sb = s;
    const r = await runCli(['--help'], s.env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/without -y yagent asks before reading or writing outside the workspace/);
    expect(r.stdout).toMatch(/run_bash runs in\s+a bubblewrap sandbox/);
    expect(r.stdout).toMatch(/without it the word check is not a sandbox/);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('## Security model');
    expect(readme).toMatch(/every `run_bash` command also runs in an OS\s+sandbox \(bubblewrap\)/);
    // "not a sandbox" is said of the fallback only
    const notASandbox = readme.split('\n').filter((l) => /not a sandbox/.test(l));
    expect(notASandbox).toHaveLength(1);
    expect(notASandbox[0]).toMatch(/the word check is the only layer, and it is not a sandbox/);
  });
});
