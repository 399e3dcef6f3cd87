// Issue 22 item 3 through the real CLI: at session start yagent reads the workspace's git identity. A clean filter in
// the repository's own .git/config (referenced by its .gitattributes) dumped MY_TOKEN and the provider's key variable
// into a workspace file, and a plain read_file sent them to the model. Now the filter never runs.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { codingDoes, KEY_CONFIG, MY_TOKEN, PROVIDER_KEY, toolResults, withSecrets } from './exfil-helpers.js';
import { project, runCli, sandbox, withScript, type Sandbox } from './helpers.js';

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

describe('no program from the repository runs before the user approves anything', () => {
  it("a clean filter in the repository's .git/config does not run at session start: nothing dumped, nothing read", async () => {
    sb = sandbox(KEY_CONFIG);
    const ws = project(sb, { 'package.json': '{"name":"fixture"}\n', '.gitattributes': '* filter=x\n' });
    const git = (...args: string[]): string => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=master', ...args], { cwd: ws, encoding: 'utf8', env: sb?.env });
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'first');
    // the attack: the filter writes yagent's secrets into the workspace, where read_file is free
    git('config', 'filter.x.clean', `sh -c 'echo "MY_TOKEN=$MY_TOKEN LLM_ACCESS=$LLM_ACCESS" >> ${join(ws, 'dump.txt')}; cat'`);
    // a changed mtime makes git status compare content, which runs the clean filter
    utimesSync(join(ws, 'package.json'), new Date('2001-01-01'), new Date('2001-01-01'));
    const seen = join(sb.dir, 'requests.jsonl');
    writeFileSync(seen, '');
    const script = codingDoes([{ name: 'read_file', args: { path: 'dump.txt' } }], seen);
    const r = await runCli(['-p', 'read dump.txt', '--output-format', 'json'], withSecrets(withScript(sb, script)), { cwd: ws });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(ws, 'dump.txt'))).toBe(false);
    const requests = readFileSync(seen, 'utf8');
    expect(toolResults(seen).join('\n')).toContain("not_found");
    expect(requests).not.toContain(MY_TOKEN);
    expect(requests).not.toContain(PROVIDER_KEY);
    // the identity was still read (with the filter off): the session's rollout names the commit
    const head = git('rev-parse', 'HEAD').trim();
    const metas = execFileSync('grep', ['-rh', '"type":"session_meta"', sb.home], { encoding: 'utf8' }).trim().split('\n');
    expect(metas.map((l) => (JSON.parse(l) as { payload: { git: unknown } }).payload.git)).toContainEqual({ commit: head, branch: 'master', dirty: false });
  });
});
