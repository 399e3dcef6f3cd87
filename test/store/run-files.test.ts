// Private run files (the supervisor's discovery file) written by the store: atomic, 0600 in a 0700 directory.
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runDir } from '../../src/store/run-files.js';
import { storeIn, tempRoot } from './helpers.js';

const t = tempRoot('yagent-run-');
afterAll(() => t.cleanup());
const mode = (p: string): number => statSync(p).mode & 0o777;

describe('run files', () => {
  it('a run file is written atomically with mode 0600 inside a 0700 run dir, and replaced whole', async () => {
    const root = join(t.dir, 'a');
    const s = storeIn(root);
    const path = await s.writeRunFile('supervisor-42.json', '{"token":"one"}\n');
    expect(path).toBe(join(root, 'run', 'supervisor-42.json'));
    expect(mode(path)).toBe(0o600);
    expect(mode(runDir(root))).toBe(0o700);
    await s.writeRunFile('supervisor-42.json', '{"token":"two"}\n');
    expect(readFileSync(path, 'utf8')).toBe('{"token":"two"}\n');
    expect(readdirSync(runDir(root))).toEqual(['supervisor-42.json']);
  });

  it('a run dir that already exists with a wider mode is tightened to 0700', async () => {
    const root = join(t.dir, 'b');
    mkdirSync(runDir(root), { recursive: true });
    chmodSync(runDir(root), 0o755);
    await storeIn(root).writeRunFile('x.json', '{}');
    expect(mode(runDir(root))).toBe(0o700);
  });

  it('names that could leave the run dir or pose as a tmp file are refused as BAD_PATH, nothing written', async () => {
    const root = join(t.dir, 'c');
    const s = storeIn(root);
    for (const bad of ['', '../escape.json', 'a/b.json', '.hidden', 'x.json.1.2.tmp', 'n'.repeat(200)]) {
      await expect(s.writeRunFile(bad, '{}')).rejects.toMatchObject({ code: 'BAD_PATH' });
      await expect(s.removeRunFile(bad)).rejects.toMatchObject({ code: 'BAD_PATH' });
    }
    await expect(s.writeRunFile('big.json', 'x'.repeat(70_000))).rejects.toMatchObject({ code: 'BAD_INPUT' });
    expect(() => readdirSync(runDir(root))).toThrow();
  });

  it('removing a run file that is already gone is not an error', async () => {
    const s = storeIn(join(t.dir, 'd'));
    const path = await s.writeRunFile('gone.json', '{}');
    await s.removeRunFile('gone.json');
    await s.removeRunFile('gone.json');
    expect(() => statSync(path)).toThrow();
  });
});
