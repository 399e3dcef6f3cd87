// Finds, creates (template, 0600), parses (smol-toml), validates (zod) and normalises the config file.
import { ConfigError } from './errors.js';
import type { Env } from './env.js';
import { finishConfig, parseToml, readConfigFile, type LoadOptions } from './read.js';
import { rawConfigSchema } from './schema.js';
import type { YagentConfig } from './types.js';

export { defaultConfigPath, ensureConfigExists, type LoadOptions } from './read.js';

/** Parses config text; every failure is a ConfigError with what / where / fix. */
export function parseConfigText(text: string, path: string, env: Env = process.env, validate = true): YagentConfig {
  const doc = parseToml(text, path);
  const res = rawConfigSchema().safeParse(doc);
  if (!res.success) {
    const issue = res.error.issues[0];
    const key = issue?.path.join('.') ?? '';
    throw new ConfigError(`invalid value for "${key}": ${issue?.message ?? 'invalid'}`, `${path}: ${key}`, 'correct the value type of that key (see the comments in the template)');
  }
  return finishConfig(res.data, doc, path, env, validate);
}

export async function loadConfig(opts: LoadOptions = {}): Promise<{ config: YagentConfig; created: boolean }> {
  const { path, text, created } = await readConfigFile(opts);
  return { config: parseConfigText(text, path, opts.env ?? process.env, opts.validate ?? true), created };
}
