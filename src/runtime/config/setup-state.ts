// First-run detection, derived only from the config itself (no "already asked" marker file).
import { isConfigError, type ConfigError } from './errors.js';
import { loadConfig, type LoadOptions } from './loader.js';
import { PLACEHOLDER_API_KEY } from './template.js';
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
    if (placeholder !== undefined) return { state: 'placeholder', config, provider: placeholder.name };
    return { state: 'ok', config };
  } catch (err) {
    if (isConfigError(err)) return { state: 'broken', error: err };
    throw err;
  }
}
