// First contact with the CLI (issue 25 items 10 and 13): --version names its build, a bare prompt, an unknown
// option, and a fresh HOME each get an answer a user can act on.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, runCli, sandbox, type Sandbox } from './helpers.js';

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

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
