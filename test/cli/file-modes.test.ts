// The data root is private: after a demo run (real agents, store, notes, rollouts, task memory) every
// directory under it is 0700 and every file 0600 — `find <root> -perm /077` prints nothing.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GOOD_CONFIG, runCli, sandbox } from './helpers.js';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('file modes under the data root', () => {
  it('a demo run leaves no file or directory readable by group or others', async () => {
    dir = mkdtempSync(join(tmpdir(), 'yagent-modes-'));
    const home = join(dir, 'yagent-home'); // created by yagent itself, not by the test
    const env = { PATH: process.env.PATH, HOME: dir, YAGENT_HOME: home, YAGENT_NOTES_ROOT: join(home, 'notes'), NO_COLOR: '1' };
    const r = await runCli(['demo'], env);
    expect(r.stderr).toMatch(/demo: passed/);
    const files = execFileSync('find', [home, '-type', 'f'], { encoding: 'utf8' }).trim().split('\n');
    expect(files.some((f) => f.endsWith('.jsonl'))).toBe(true); // rollouts and task memory were written
    expect(files.some((f) => f.endsWith('.md'))).toBe(true); // and notes
    expect(files.some((f) => f.includes('/undo/') && f.endsWith('/git/HEAD'))).toBe(true); // and the undo store's shadow git
    expect(execFileSync('find', [home, '-perm', '/077'], { encoding: 'utf8' })).toBe('');
  });
});

describe('setup write-back', () => {
  it('replaces the config by rename and narrows a 0644 file to 0600 with a warning', async () => {
    const sb = sandbox(GOOD_CONFIG);
    dir = sb.dir;
    const cfg = join(sb.home, 'config', 'config.toml');
    chmodSync(cfg, 0o644);
    const ino = statSync(cfg).ino;
    const r = await runCli(['setup', '--no-probe', '--provider', 'mine', '--base-url', 'http://127.0.0.1:1/v1', '--model', 'm1', '--api-key-env', 'MY_KEY'], { ...sb.env, MY_KEY: 'x' });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/mode 0644.*0600/);
    expect(statSync(cfg).mode & 0o777).toBe(0o600);
    expect(statSync(cfg).ino).not.toBe(ino);
    expect(readFileSync(cfg, 'utf8')).toContain('use_provider = "mine"');
  });
});
