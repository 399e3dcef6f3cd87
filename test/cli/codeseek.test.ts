// The codeseek_* tools through the real CLI: the codeseek actor in its own worker under the services supervisor,
// its cache written by the store actor (private), answers from the parsed code.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { codingDoes, KEY_CONFIG, toolResults, withSecrets } from './exfil-helpers.js';
import { project, runCli, sandbox, withScript, type Sandbox } from './helpers.js';
import { TS_FILES } from '../codeseek/fixtures.js';

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

it('Coding asks who calls a function and for a skeleton; the index cache is kept by the store', async () => {
  sb = sandbox(KEY_CONFIG);
  const ws = project(sb, { 'package.json': '{"name":"fixture"}\n', ...TS_FILES });
  const seen = join(sb.dir, 'requests.jsonl');
  writeFileSync(seen, '');
  const script = codingDoes(
    [
      { name: 'codeseek_callers', args: { name: 'add' } },
      { name: 'codeseek_skeleton', args: { paths: ['src/math.ts'] } },
      { name: 'codeseek_callees', args: { name: 'run', path: '../elsewhere.ts' } },
    ],
    seen,
  );
  const r = await runCli(['-p', 'who calls add', '-y', '--output-format', 'json'], withSecrets(withScript(sb, script)), { cwd: ws });
  expect(r.code, r.stderr).toBe(0);
  const [callers, skel, outside] = toolResults(seen);
  expect(callers).toContain('3 call site(s) in 3 caller(s)');
  expect(callers).toMatch(/src\/main\.ts:4-7 function run — calls at line 6/);
  expect(skel).toContain('9-12 method plus(n: number): this');
  expect(outside).toMatch(/outside_workspace/);
  const root = join(sb.home, 'data', 'codeseek');
  expect(existsSync(root)).toBe(true);
  expect(readdirSync(root).filter((f) => f.endsWith('.json'))).toHaveLength(1);
  expect(execFileSync('find', [root, '-perm', '/077'], { encoding: 'utf8' })).toBe('');
}, 120_000);
