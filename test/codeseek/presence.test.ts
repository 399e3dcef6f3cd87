// A workspace with no file the index could cover boots no code-index worker (issue 29, peak RSS): mayHoldCode is false
// only where the index's own listing (files.ts) is empty, and the blueprint then derives what the index would answer.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Blueprint } from '../../src/actors/blueprint/blueprint.js';
import { codeSeekFacade } from '../../src/actors/codeseek/codeseek-actor.js';
import { CodeSeek } from '../../src/actors/codeseek/engine.js';
import { listSourceFiles } from '../../src/actors/codeseek/files.js';
import { mayHoldCode } from '../../src/actors/codeseek/presence.js';
import type { CodeSeekApi } from '../../src/actors/codeseek/client.js';
import { realClock } from '../../src/runtime/clock.js';
import { createTaskGroup } from '../../src/runtime/tasks.js';
import { storeIn, tempRoot } from '../store/helpers.js';
import { tempRepo } from './fixtures.js';

const made: string[] = [];
afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));
const repo = (files: Record<string, string>, git = true): string => {
  const r = tempRepo(files, git);
  made.push(r);
  return r;
};

const NO_CODE = { 'notes.md': '# notes\n', 'f0.txt': 'file 0\n', 'data/a.csv': 'a,b\n', 'package.json': '{"name":"docs","main":"index.js"}\n' };

describe('mayHoldCode', () => {
  it('is false exactly where the index lists nothing: text only, code only under never-indexed directories, minified bundles', async () => {
    for (const git of [true, false]) {
      for (const files of [NO_CODE, { ...NO_CODE, 'node_modules/x/index.js': 'x()\n', 'dist/a.js': 'a()\n', '.git-keep/readme': 'x\n', 'lib/app.min.js': 'x()\n' }]) {
        const ws = repo(files, git);
        expect(await listSourceFiles(ws)).toEqual([]);
        expect(await mayHoldCode(ws)).toBe(false);
      }
    }
  });

  it('is true wherever the index lists a file: at the top, deep down, in a dot directory git tracks, as a link', async () => {
    const cases: Record<string, string>[] = [{ 'main.go': 'package main\n' }, { 'a/b/c/d/tool.py': 'print(1)\n' }, { '.github/scripts/check.mjs': 'run()\n' }];
    for (const files of cases) {
      const ws = repo({ ...NO_CODE, ...files });
      if (files['.github/scripts/check.mjs'] !== undefined) execFileSync('git', ['add', '-A'], { cwd: ws });
      expect((await listSourceFiles(ws)).length).toBeGreaterThan(0);
      expect(await mayHoldCode(ws)).toBe(true);
    }
    const linked = repo(NO_CODE);
    symlinkSync(join(linked, 'notes.md'), join(linked, 'view.ts'));
    expect(await listSourceFiles(linked)).toEqual(['view.ts']);
    expect(await mayHoldCode(linked)).toBe(true);
  });

  it('answers true past its bound (a large tree is left to the index) and for a file the ignore rules drop (a superset)', async () => {
    const big = repo(NO_CODE, false);
    for (let i = 0; i < 8; i++) mkdirSync(join(big, `d${i}`, 'x'), { recursive: true });
    expect(await mayHoldCode(big)).toBe(false);
    expect(await mayHoldCode(big, 4)).toBe(true);
    const ignored = repo({ ...NO_CODE, '.gitignore': 'gen/\n', 'gen/out.ts': 'x()\n' });
    expect(await listSourceFiles(ignored)).toEqual([]);
    expect(await mayHoldCode(ignored)).toBe(true);
  });
});

describe('the blueprint of a workspace with no code', () => {
  it('derives what the code index would answer without asking it; a workspace with code still asks it', async () => {
    const home = tempRoot();
    made.push(home.dir);
    const engine = codeSeekFacade(new CodeSeek({ tasks: createTaskGroup(), clock: realClock }), 30_000);
    let asked = 0;
    const counted: Pick<CodeSeekApi, 'imports'> = { imports: (ws) => (asked++, engine.imports(ws)) };
    const config = { enabled: true, injectInto: ['director'], indexMaxTokens: 800, proseBudgetTokens: 2000, exportPath: '' };
    const bp = (code: Pick<CodeSeekApi, 'imports'>): Blueprint => new Blueprint({ store: storeIn(home.dir), code, config, publish: () => undefined, now: () => 0 });
    const ws = repo(NO_CODE);
    const probed = await bp(counted).derived(ws);
    expect(asked).toBe(0);
    const { status, files } = await engine.imports(ws);
    expect(files).toEqual([]);
    expect(probed).toEqual(await bp({ imports: () => Promise.resolve({ status: { ...status, building: false }, files }) }).derived(ws));
    expect(await bp(counted).injection('director', ws, 'p')).toEqual(await bp(engine).injection('director', ws, 'p'));
    expect(asked).toBe(0);
    await bp(counted).derived(repo({ ...NO_CODE, 'src/a.ts': 'export const a = 1;\n' }));
    expect(asked).toBe(1);
    // no code, no manifest: an empty derived layer is no message (a manifest alone still is one, as above)
    expect((await bp(counted).injection('director', ws, 'p'))[0]?.content).toContain('Manifests: package.json');
    expect(await bp(counted).injection('director', repo({ 'notes.md': '# notes\n' }), 'p')).toEqual([]);
  });
});
