// Issue 22 items 4 and 5 through the real CLI: a skill folder swapped for a link to ~/.ssh after the run found it
// (use_skill returned the private key), and a workspace link named in a glob pattern (`sl/*` with sl -> ~/.ssh listed
// the names there, into the data root too, even with -y). Both resolve real paths now and never leave the skill root
// or the searched tree. The swap is made by the scripted model's step itself (as a run_bash step did in the issue).
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { codingDoes, KEY_CONFIG, toolResults, withSecrets } from './exfil-helpers.js';
import { project, runCli, sandbox, withScript, type Sandbox } from './helpers.js';

const PRIVATE_KEY = '-----BEGIN OPENSSH PRIVATE KEY----- private-key-0123456789';

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

/** A sandbox whose HOME holds ~/.ssh/id_rsa, and a workspace with one skill. */
function setup(): { sb: Sandbox; ws: string; ssh: string } {
  const s = sandbox(KEY_CONFIG);
  const ssh = join(s.dir, '.ssh');
  mkdirSync(ssh, { mode: 0o700 });
  writeFileSync(join(ssh, 'id_rsa'), `${PRIVATE_KEY}\n`, { mode: 0o600 });
  writeFileSync(join(ssh, 'SKILL.md'), `---\nname: deploy\ndescription: how to deploy\n---\n${PRIVATE_KEY}\n`);
  const ws = project(s, {
    'package.json': '{"name":"fixture"}\n',
    '.yagent/skills/deploy/SKILL.md': '---\nname: deploy\ndescription: how to deploy\n---\nRun the deploy script.\n',
    '.yagent/skills/deploy/steps.md': 'step one\n',
  });
  return { sb: s, ws, ssh };
}

describe('links lead nowhere outside the skill root or the searched tree', () => {
  it('use_skill on a skill folder swapped for a link to ~/.ssh after discovery: refused, the key never reaches the model', async () => {
    const f = setup();
    sb = f.sb;
    const seen = join(f.sb.dir, 'requests.jsonl');
    writeFileSync(seen, '');
    const dir = join(f.ws, '.yagent', 'skills', 'deploy');
    const swap = `rmSync(${JSON.stringify(dir)}, { recursive: true, force: true }); symlinkSync(${JSON.stringify(f.ssh)}, ${JSON.stringify(dir)})`;
    const script = codingDoes(
      [
        { name: 'use_skill', args: { name: 'deploy' } },
        { name: 'use_skill', args: { name: 'deploy', file: 'steps.md' } },
        { name: 'use_skill', args: { name: 'deploy' }, before: swap },
        { name: 'use_skill', args: { name: 'deploy', file: 'id_rsa' } },
        { name: 'use_skill', args: { name: 'deploy', file: 'steps.md' } },
      ],
      seen,
      "\nimport { rmSync, symlinkSync } from 'node:fs';",
    );
    const r = await runCli(['-p', 'deploy it', '-y', '--output-format', 'json'], withSecrets(withScript(f.sb, script)), { cwd: f.ws });
    expect(r.code, r.stderr).toBe(0);
    const results = toolResults(seen);
    expect(results[0]).toContain('Run the deploy script.');
    expect(results[1]).toContain('step one');
    expect(results.slice(2)).toHaveLength(3);
    for (const later of results.slice(2)) expect(later).toMatch(/skill_escapes/);
    expect(results.slice(2).join('\n')).not.toContain('id_rsa\n');
    expect(readFileSync(seen, 'utf8')).not.toContain(PRIVATE_KEY);
  });

  it('glob through a workspace link to ~/.ssh or the data root lists nothing there, even with -y', async () => {
    const f = setup();
    sb = f.sb;
    symlinkSync(f.ssh, join(f.ws, 'sl'));
    symlinkSync(f.sb.home, join(f.ws, 'dr'));
    mkdirSync(join(f.ws, 'src'));
    writeFileSync(join(f.ws, 'src', 'a.ts'), 'export {};\n');
    const seen = join(f.sb.dir, 'requests.jsonl');
    writeFileSync(seen, '');
    const patterns = ['sl/*', 'dr/**', 'dr/config/*', 's?/*', '{sl,src}/*', 's\\l/*', '[s]l/*', '(sl)/*', '*/id_rsa', 'd*/**/*.toml', 'src/*'];
    const script = codingDoes(patterns.map((pattern) => ({ name: 'glob', args: { pattern } })), seen);
    const r = await runCli(['-p', 'look around', '-y', '--output-format', 'json'], withSecrets(withScript(f.sb, script)), { cwd: f.ws });
    expect(r.code, r.stderr).toBe(0);
    const results = toolResults(seen);
    expect(results).toHaveLength(patterns.length);
    expect(results[0]).toContain('pattern_follows_link');
    expect(results[1]).toContain('pattern_follows_link');
    expect(results.at(-1)).toContain('src/a.ts');
    const all = results.join('\n');
    expect(all).not.toMatch(/id_rsa|config\.toml|SKILL\.md/);
  });
});
