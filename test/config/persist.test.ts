// Text-level write-back: one key in one section, comments kept, values escaped; referenced providers kept.
import { describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { parse } from 'smol-toml';
import {
  CONFIG_TEMPLATE,
  deleteProvider,
  isConfigError,
  parseConfigText,
  persistKey,
  removeProviderSection,
  setKeyInSection,
} from '../../src/runtime/config/index.js';
import { BASE } from './helpers.js';

describe('setKeyInSection', () => {
  it('replaces one value and keeps every comment, including the trailing one on that line', () => {
    const out = setKeyInSection(CONFIG_TEMPLATE, 'llm', 'max_retries', 9);
    expect(out).toContain('max_retries = 9                  # exponential backoff capped at 30s, honouring Retry-After');
    const before = CONFIG_TEMPLATE.split('\n').filter((l) => l.includes('#'));
    const after = out.split('\n').filter((l) => l.includes('#'));
    expect(after.length).toBe(before.length);
    expect(out.split('\n').length).toBe(CONFIG_TEMPLATE.split('\n').length);
    expect(parseConfigText(out, 't', {}).llm.maxRetries).toBe(9);
  });

  it('only touches the named section (same key elsewhere unchanged)', () => {
    const text = '[a]\nk = 1 # one\n[b]\nk = 2 # two\n';
    expect(setKeyInSection(text, 'b', 'k', 5)).toBe('[a]\nk = 1 # one\n[b]\nk = 5 # two\n');
  });

  it('escapes every value so a hostile string cannot break the file', () => {
    const nasty = 'a"b\\c\nd = "x" # not a comment';
    const out = setKeyInSection('[s]\nv = "old"\n', 's', 'v', nasty);
    expect((parse(out) as { s: { v: string } }).s.v).toBe(nasty);
  });

  it('appends a missing key after the section\'s last key, and a missing section at the end', () => {
    const text = '# top\n[s]\na = 1\n\n# about t\n[t]\nb = 2\n';
    expect(setKeyInSection(text, 's', 'z', true)).toBe('# top\n[s]\na = 1\nz = true\n\n# about t\n[t]\nb = 2\n');
    const added = setKeyInSection(text, 'global.llm', 'use_provider', 'x');
    expect((parse(added) as { global: { llm: { use_provider: string } } }).global.llm.use_provider).toBe('x');
    expect(added.startsWith(text)).toBe(true);
  });

  it('replaces a multi-line array value whole', () => {
    const text = '[s]\nlist = [\n  "a",\n  "b",\n] # kept\nafter = 1\n';
    const out = setKeyInSection(text, 's', 'list', ['c']);
    expect(parse(out)).toEqual({ s: { list: ['c'], after: 1 } });
    expect(out).toContain('# kept');
  });

  it('persistKey rewrites the file in place, keeping mode 0600', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'yagent-persist-'));
    try {
      const path = join(dir, 'config.toml');
      await writeFile(path, CONFIG_TEMPLATE, { mode: 0o600 });
      await persistKey(path, 'global.llm', 'use_provider', 'openai');
      await persistKey(path, 'global.llm.providers.openai', 'model', 'gpt-5');
      const text = await readFile(path, 'utf8');
      expect(parseConfigText(text, path, {}).providers['openai']?.model).toBe('gpt-5');
      expect((await stat(path)).mode & 0o777).toBe(0o600);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('deleting a provider', () => {
  const doc = `${BASE}# the spare one\n[global.llm.providers.spare]\nmodel = "s"\napi_base_url = "http://u/v1"\napi_key = "k"\n\n[global.llm.providers.fb]\nmodel = "f"\napi_base_url = "http://u/v1"\napi_key = "k"\n`;

  it('removes an unreferenced provider table and nothing else', () => {
    const out = removeProviderSection(doc, 'c.toml', 'spare');
    const c = parseConfigText(out, 'c.toml', {});
    expect(Object.keys(c.providers).sort()).toEqual(['fb', 'main']);
  });

  it.each([
    ['global.llm use_provider', '', 'main'],
    ['agents.llm', '[agents.llm]\nrepo.use_provider = "spare"\n', 'spare'],
    ['fallback_providers', '', 'fb'],
    ['routing.tiers', '[routing.tiers]\nfast = "spare"\n', 'spare'],
  ])('is refused while referenced (%s)', async (_label, extra, name) => {
    const text = doc.replace('api_key = "k"\n# the spare', 'api_key = "k"\nfallback_providers = ["fb"]\n# the spare') + extra;
    let caught: unknown;
    try {
      removeProviderSection(text, 'c.toml', name);
    } catch (e) {
      caught = e;
    }
    expect(isConfigError(caught)).toBe(true);
    const dir = await mkdtemp(join(tmpdir(), 'yagent-del-'));
    const path = join(dir, 'c.toml');
    await writeFile(path, text);
    await expect(deleteProvider(path, name)).rejects.toThrow('still referenced');
    expect(await readFile(path, 'utf8')).toBe(text);
    await rm(dir, { recursive: true, force: true });
  });
});
