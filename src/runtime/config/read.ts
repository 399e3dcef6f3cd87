// The config loader's zod-free half: where the file is, reading it (the template written when the default file is
// missing), TOML, and what follows the shape check (normalise, llm sections, providers). loader.ts checks the shape
// with the zod schema; quick-load.ts with its plain-data twin first (raw-spec.ts).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { homedir as osHomedir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse, TomlError } from 'smol-toml';
import { describeTomlError } from './toml-errors.js';
import { yagentHome, type Env } from './env.js';
import { ConfigError } from './errors.js';
import { normalise } from './normalise.js';
import { validateLlmSections } from './llm-sections.js';
import { PROVIDER_SPEC } from './raw-spec.js';
import { validateProviders, type RawProviderEnv } from './resolve.js';
import type { RawConfig } from './schema.js';
import { CONFIG_TEMPLATE } from './template.js';
import type { YagentConfig } from './types.js';

export interface LoadOptions {
  /** `--config`: used as is, never created. */
  configPath?: string | undefined;
  env?: Env;
  homedir?: string;
  /** false skips provider validation (the setup wizard must run on a broken config). */
  validate?: boolean;
}

export function defaultConfigPath(env: Env = process.env, home: string = osHomedir()): string {
  return join(yagentHome(env, home), 'config', 'config.toml');
}

/** Writes the template when the file is missing; `created` is one of the first-run signals. */
export async function ensureConfigExists(path: string): Promise<{ created: boolean }> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  try {
    await writeFile(path, CONFIG_TEMPLATE, { mode: 0o600, flag: 'wx' });
    return { created: true };
  } catch (err) {
    if ((err as { code?: unknown }).code === 'EEXIST') return { created: false };
    throw err;
  }
}

/** The config file's path and text (the default file created from the template first when missing). */
export async function readConfigFile(opts: LoadOptions): Promise<{ path: string; text: string; created: boolean }> {
  const env = opts.env ?? process.env;
  let path: string;
  let created = false;
  if (opts.configPath !== undefined) {
    path = opts.configPath;
  } else {
    path = defaultConfigPath(env, opts.homedir ?? osHomedir());
    created = (await ensureConfigExists(path)).created;
  }
  try {
    return { path, text: await readFile(path, 'utf8'), created };
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new ConfigError(code === 'ENOENT' ? 'config file not found' : `cannot read config file (${String(code)})`, path, opts.configPath !== undefined ? 'check the --config path (it is never created for you)' : 'check the permissions of the file');
  }
}

/** The TOML document; a syntax error is a ConfigError with line and column. */
export function parseToml(text: string, path: string): unknown {
  try {
    return parse(text);
  } catch (err) {
    if (err instanceof TomlError) {
      const d = describeTomlError(text, err.message, err.line, err.column);
      throw new ConfigError(d.what, `${path}:${d.line}:${d.column}`, 'fix the TOML syntax at that line (or run `yagent setup`)');
    }
    throw err;
  }
}

/** After the shape check: `raw` is the checked document (`doc` as parsed), normalised and validated. */
export function finishConfig(raw: RawConfig, doc: unknown, path: string, env: Env, validate: boolean): YagentConfig {
  const cfg = normalise(raw, path, env);
  if (validate) {
    validateLlmSections(raw, path);
    const keyEnv: RawProviderEnv = {};
    for (const [name, p] of Object.entries(raw.global?.llm?.providers ?? {})) keyEnv[name] = p.api_key_env;
    validateProviders(cfg, keyEnv, rawProviderKeys(doc));
  }
  return cfg;
}

/** Each [global.llm.providers.NAME] table's keys the schema does not know (a typo of a required key is one). */
function rawProviderKeys(doc: unknown): Record<string, string[]> {
  const known = new Set(Object.keys(PROVIDER_SPEC.shape));
  const providers = (doc as { global?: { llm?: { providers?: unknown } } } | null)?.global?.llm?.providers;
  if (typeof providers !== 'object' || providers === null) return {};
  const out: Record<string, string[]> = {};
  for (const [name, t] of Object.entries(providers)) if (typeof t === 'object' && t !== null) out[name] = Object.keys(t).filter((k) => !known.has(k));
  return out;
}
