// Config file lifecycle: template creation (0600), --config never created, broken files, setup states.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type {
  ConfigError} from '../../src/runtime/config/index.js';
import {
  CONFIG_EXIT_CODE,
  CONFIG_TEMPLATE,
  defaultConfigPath,
  isConfigError,
  loadConfig,
  parseConfigText,
  setupState,
} from '../../src/runtime/config/index.js';
import { BASE, cfg } from './helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'yagent-config-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const errOf = (fn: () => unknown): ConfigError => {
  try {
    fn();
  } catch (e) {
    if (isConfigError(e)) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
};

describe('config file', () => {
  it('is generated from the embedded template with mode 0600 under YAGENT_HOME when missing', async () => {
    const env = { YAGENT_HOME: dir };
    const first = await setupState({ env });
    expect(first.state).toBe('fresh');
    const path = defaultConfigPath(env);
    expect(path).toBe(join(dir, 'config', 'config.toml'));
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readFile(path, 'utf8')).toBe(CONFIG_TEMPLATE);
    // second start: the untouched template is still "nothing configured" (issue 25: not "a placeholder key")
    const second = await setupState({ env });
    expect(second.state).toBe('fresh');
    // an edited file that kept the placeholder key as its provider's key: that is what the user is told
    await writeFile(path, CONFIG_TEMPLATE.replace('# yagent configuration', '# my yagent configuration'));
    const edited = await setupState({ env });
    expect(edited.state).toBe('placeholder');
  });

  it('a --config path is used as is and never created', async () => {
    const path = join(dir, 'nope', 'custom.toml');
    const err = await loadConfig({ configPath: path, env: {} }).catch((e: unknown) => e);
    expect(isConfigError(err)).toBe(true);
    expect(existsSync(path)).toBe(false);
    await mkdir(join(dir, 'nope'));
    await writeFile(path, BASE);
    const { config, created } = await loadConfig({ configPath: path, env: {} });
    expect(created).toBe(false);
    expect(config.globalProvider).toBe('main');
  });

  it('a broken file is three human lines and exit code 2, pointing at the line', async () => {
    const path = join(dir, 'c.toml');
    await writeFile(path, `${BASE}\n[agent]\nmax_parallel_delegations = [\n`);
    const state = await setupState({ configPath: path, env: {} });
    expect(state.state).toBe('broken');
    if (state.state !== 'broken') return;
    const lines = state.error.lines();
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/c\.toml:\d+:\d+/);
    expect(lines.join('\n')).not.toMatch(/\n\s+at /);
    expect(state.error.exitCode).toBe(CONFIG_EXIT_CODE);
    expect(CONFIG_EXIT_CODE).toBe(2);
  });

  it.each([
    ['bad TOML', 'k = [\n'],
    ['wrong type', '[llm]\nmax_retries = "five"'],
    ['bad duration', '[agent]\ndelegate_idle_timeout = "soon"'],
    ['undefined provider', '[agents.llm]\ncoding.use_provider = "ghost"'],
    ['missing model', '[global.llm.providers.main]\n'],
    ['relative browser executable (it would depend on the cwd)', '[browser]\nexecutable = "bin/chrome"'],
  ])('every broken config is three human lines, where starting at the file (%s)', async (_kind, extra) => {
    const path = join(dir, 'broken.toml');
    // 'missing model' reopens BASE's provider without its keys: a duplicate table is itself broken TOML, so write a fresh one
    const text = extra.startsWith('[global.llm.providers.main]') ? '[global.llm]\nuse_provider = "main"\n[global.llm.providers.main]\napi_base_url = "http://u/v1"\napi_key = "k"\n' : `${BASE}\n${extra}`;
    await writeFile(path, text);
    const state = await setupState({ configPath: path, env: {} });
    expect(state.state).toBe('broken');
    if (state.state !== 'broken') return;
    const lines = state.error.lines();
    expect(lines).toHaveLength(3);
    expect(lines.every((l) => l.trim().length > 10 && !l.includes('\n'))).toBe(true);
    expect(state.error.where.startsWith(path)).toBe(true);
    expect(state.error.fix).not.toBe('');
    expect(state.error.exitCode).toBe(2);
  });

  it('a missing --config file is a three-line error naming the path, not a stack', async () => {
    const path = join(dir, 'absent.toml');
    const state = await setupState({ configPath: path, env: {} });
    expect(state.state).toBe('broken');
    if (state.state === 'broken') expect(state.error.lines()[1]).toContain(path);
  });

  it('a value of the wrong type names the key', () => {
    const e = errOf(() => cfg('[llm]\nmax_retries = "five"'));
    expect(e.where).toContain('llm.max_retries');
  });

  it('setup state ok once a real key is set', async () => {
    const path = join(dir, 'ok.toml');
    await writeFile(path, BASE);
    expect((await setupState({ configPath: path, env: {} })).state).toBe('ok');
  });

  it('the template parses and its values are the defaults the code uses (no dead default)', () => {
    const fromTemplate = parseConfigText(CONFIG_TEMPLATE, 't', {});
    const minimal = cfg();
    expect(fromTemplate.agent).toEqual(minimal.agent);
    expect(fromTemplate.llm).toEqual(minimal.llm);
    expect(fromTemplate.blackboard).toEqual(minimal.blackboard);
    expect(fromTemplate.resume).toEqual(minimal.resume);
    expect(fromTemplate.compression).toEqual(minimal.compression);
    expect(fromTemplate.blueprint).toEqual(minimal.blueprint);
    expect(fromTemplate.routing.mode).toBe(minimal.routing.mode);
  });
});

describe('provider validation', () => {
  const doc = (provider: string) => `[global.llm]\nuse_provider = "p"\n[global.llm.providers.p]\n${provider}`;

  it.each([
    ['model', 'api_base_url = "http://u/v1"\napi_key = "k"'],
    ['api_base_url', 'model = "m"\napi_key = "k"'],
    ['api_key', 'model = "m"\napi_base_url = "http://u/v1"'],
  ])('the effective provider without %s is refused, naming the key', (key, body) => {
    const e = errOf(() => parseConfigText(doc(body), 'c.toml', {}));
    expect(e.where).toContain(`] ${key}`);
  });

  it('api_key_env is expanded once at load; an unset variable is named', () => {
    const body = 'model = "m"\napi_base_url = "http://u/v1"\napi_key_env = "MY_KEY"';
    expect(parseConfigText(doc(body), 'c.toml', { MY_KEY: 'secret' }).providers['p']?.apiKey).toBe('secret');
    const e = errOf(() => parseConfigText(doc(body), 'c.toml', {}));
    expect(e.what).toContain('MY_KEY');
  });

  it('api_key_env is read once at load: changing the variable afterwards changes nothing; api_key wins over it', () => {
    const body = 'model = "m"\napi_base_url = "http://u/v1"\napi_key_env = "MY_KEY"';
    const env: Record<string, string> = { MY_KEY: 'first' };
    const c = parseConfigText(doc(body), 'c.toml', env);
    env['MY_KEY'] = 'second';
    expect(c.providers['p']?.apiKey).toBe('first');
    expect(parseConfigText(doc(`${body}\napi_key = "inline"`), 'c.toml', env).providers['p']?.apiKey).toBe('inline');
  });

  it('an unreferenced incomplete provider is fine; a referenced missing one is named with its reference', () => {
    expect(() => cfg('[global.llm.providers.spare]\nmodel = "x"')).not.toThrow();
    const e = errOf(() => cfg('[agents.llm]\ncoding.use_provider = "ghost"'));
    expect(e.what).toContain('ghost');
    expect(e.where).toContain('coding.use_provider');
    const f = errOf(() => cfg('[global.llm.providers.main2]\nmodel="m"\napi_base_url="http://u/v1"\napi_key="k"\nfallback_providers = ["gone"]'));
    expect(f.where).toContain('fallback_providers');
  });
});
