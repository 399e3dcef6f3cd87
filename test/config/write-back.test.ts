// Config write-back is atomic: tmp file → the new text parses → rename over the original (through the one
// atomicWrite), keeping the file's mode (0600 when it was wider, with a warning) and a symlink's target.
import { afterEach, describe, expect, it } from 'vitest';
import { chmod, lstat, mkdtemp, readFile, readdir, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { CONFIG_TEMPLATE, isConfigError, persistKey, writeConfigText } from '../../src/runtime/config/index.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

async function configFile(mode: number): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'yagent-writeback-'));
  const path = join(dir, 'config.toml');
  await writeFile(path, CONFIG_TEMPLATE);
  await chmod(path, mode);
  return path;
}

describe('config write-back', () => {
  it('replaces the file by rename (a new inode, no tmp left), never rewrites it in place', async () => {
    const path = await configFile(0o600);
    const before = (await stat(path)).ino;
    await persistKey(path, 'global.llm', 'use_provider', 'openai');
    expect((await stat(path)).ino).not.toBe(before);
    expect(await readFile(path, 'utf8')).toContain('use_provider = "openai"');
    expect(await readdir(dir ?? '')).toEqual(['config.toml']);
  });

  it('keeps a private mode, and narrows a wider one to 0600 with a warning', async () => {
    const path = await configFile(0o400);
    const quiet: string[] = [];
    await persistKey(path, 'global.llm', 'use_provider', 'a', { warn: (m) => quiet.push(m) });
    expect((await stat(path)).mode & 0o777).toBe(0o400);
    expect(quiet).toEqual([]);
    await chmod(path, 0o644);
    const warned: string[] = [];
    await persistKey(path, 'global.llm', 'use_provider', 'b', { warn: (m) => warned.push(m) });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(warned.join('\n')).toMatch(/0644.*0600/);
  });

  it('new text that does not parse is refused and the original is untouched', async () => {
    const path = await configFile(0o600);
    const err = await writeConfigText(path, '[global.llm\nbroken = ').catch((e: unknown) => e);
    expect(isConfigError(err)).toBe(true);
    expect(await readFile(path, 'utf8')).toBe(CONFIG_TEMPLATE);
    expect(await readdir(dir ?? '')).toEqual(['config.toml']);
  });

  it('a symlinked config stays a symlink: its target is replaced', async () => {
    const target = await configFile(0o600);
    const link = join(dir ?? '', 'link.toml');
    await symlink(target, link);
    await persistKey(link, 'global.llm', 'use_provider', 'linked');
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe(target);
    expect(await readFile(target, 'utf8')).toContain('use_provider = "linked"');
  });

  it('a symlink that cannot be resolved (a loop) is an error, and the link is never replaced by a plain file', async () => {
    dir = await mkdtemp(join(tmpdir(), 'yagent-writeback-'));
    const link = join(dir, 'config.toml');
    await symlink(link, link);
    await expect(writeConfigText(link, CONFIG_TEMPLATE)).rejects.toThrow(/ELOOP/);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readdir(dir)).toEqual(['config.toml']);
  });
});
