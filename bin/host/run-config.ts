// Loads the configuration for a run: broken = three lines + exit 2; no usable provider = points at setup.
import { setupState } from '../../src/runtime/config/setup-state.js';
import { PLACEHOLDER_API_KEY } from '../../src/runtime/config/template.js';
import type { YagentConfig } from '../../src/runtime/config/types.js';
import { CliError, ConfigExit, EXIT } from '../cli/exit-codes.js';
import type { Streams } from '../cli/output.js';

/** Removed keys (named with their replacement) and bad values: stderr only, so json/stream-json stdout stays clean. */
export function printConfigWarnings(config: Pick<YagentConfig, 'warnings'>, io: Pick<Streams, 'stderr'>): void {
  for (const w of config.warnings) io.stderr(`yagent: warning: ${w}\n`);
}

/** `scripted` (demo, YAGENT_FAKE_SCRIPT) tolerates a fresh or placeholder config: the model is local. */
export async function loadRunConfig(configPath: string | undefined, scripted: boolean): Promise<YagentConfig> {
  const st = await setupState({ configPath });
  switch (st.state) {
    case 'ok':
      return st.config;
    case 'fresh':
    case 'placeholder':
      if (scripted) return st.config;
      throw new CliError(
        st.state === 'fresh' ? 'no model provider is configured yet' : `provider "${st.provider}" still has the placeholder api key (${PLACEHOLDER_API_KEY})`,
        EXIT.config,
        st.config.path,
        st.state === 'fresh'
          ? 'run `yagent setup` (it also finds local Ollama / LM Studio / llama.cpp servers); `yagent demo` runs without a key'
          : `set its api_key or api_key_env in that file, or run \`yagent setup\`; \`yagent demo\` runs without a key`,
      );
    case 'broken':
      throw new ConfigExit(st.error.lines());
  }
}
