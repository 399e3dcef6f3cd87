// `--provider` / `provider` checks every client shares: an unknown name is refused with a did-you-mean.
import { suggest } from '../../src/runtime/config/unknown-keys.js';
import { CliError, EXIT } from '../cli/exit-codes.js';

/** null when `name` is configured; else the one-line refusal naming the closest configured provider. */
export function unknownProvider(known: readonly string[], name: string): string | null {
  if (known.includes(name)) return null;
  const near = suggest(name, [...known]);
  return `unknown provider "${name}"${near !== undefined ? ` (did you mean "${near}"?)` : ''}; configured: ${known.length > 0 ? known.join(', ') : 'none'}`;
}

/** The CLI's check of `--provider` before a run: exit 2 (a configuration error) with what, where and fix. */
export function checkProviderFlag(known: readonly string[], name: string | undefined, configPath: string | undefined): void {
  if (name === undefined) return;
  const why = unknownProvider(known, name);
  if (why !== null) throw new CliError(why, EXIT.config, configPath ?? 'the config file (~/.yagent/config/config.toml)', 'name a configured provider, or add one with `yagent setup`');
}
