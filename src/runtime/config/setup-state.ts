// First-run detection, derived only from the config itself (no "already asked" marker file).
import { isConfigError, type ConfigError } from './errors.js';
import { loadConfig, type LoadOptions } from './loader.js';
import { readFile } from 'node:fs/promises';
import { CONFIG_TEMPLATE, PLACEHOLDER_API_KEY } from './template.js';
import type { YagentConfig } from './types.js';

export type SetupState =
  | { state: 'ok'; config: YagentConfig }
  | { state: 'fresh'; config: YagentConfig }
  | { state: 'placeholder'; config: YagentConfig; provider: string }
  | { state: 'broken'; error: ConfigError };

export async function setupState(opts: LoadOptions = {}): Promise<SetupState> {
  try {
    const { config, created } = await loadConfig(opts);
    if (created) return { state: 'fresh', config };
    const placeholder = Object.values(config.providers).find(
      (p) => p.name === config.globalProvider && p.apiKey === PLACEHOLDER_API_KEY,
    );
    // the template an earlier start wrote, untouched: the user has configured nothing yet (not "a placeholder key")
    if (placeholder !== undefined) return (await untouchedTemplate(config.path)) ? { state: 'fresh', config } : { state: 'placeholder', config, provider: placeholder.name };
    return { state: 'ok', config };
  } catch (err) {
    if (isConfigError(err)) return { state: 'broken', error: err };
    throw err;
  }
}

/** The file is still the template byte for byte (a read failure counts as edited: the placeholder message stands). */
async function untouchedTemplate(path: string): Promise<boolean> {
  try {
    return (await readFile(path, 'utf8')) === CONFIG_TEMPLATE;
  } catch {
    return false; // unreadable now although it just loaded: the placeholder message is still true
  }
}
