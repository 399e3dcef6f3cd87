// run_bash's child environment is built, not inherited (Codex's shell_environment_policy): provider keys and
// secret-looking names are dropped unless `[security] shell_env_keep` keeps them.
import { isSecretName } from '../../runtime/secrets.js';

/** Always passed through: what programs need to find each other, the user, the terminal and the locale. */
export const SHELL_ENV_CORE: readonly string[] = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'TERM', 'LANG', 'LANGUAGE', 'TMPDIR', 'TZ', 'PWD', 'COLORTERM', 'NO_COLOR'];

export interface ShellEnvPolicy {
  /** Every provider's api_key_env: dropped whatever the name looks like. */
  secretNames?: readonly string[];
  /** `[security] shell_env_keep`: passed through even when secret-looking. */
  keep?: readonly string[];
}

const isCore = (name: string): boolean => SHELL_ENV_CORE.includes(name) || name.startsWith('LC_');

export function buildShellEnv(parent: NodeJS.ProcessEnv, policy: ShellEnvPolicy = {}): NodeJS.ProcessEnv {
  const keep = new Set(policy.keep ?? []);
  const drop = new Set(policy.secretNames ?? []);
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    const secret = drop.has(name) || (isSecretName(name) && !isCore(name));
    if (!secret || keep.has(name)) out[name] = value;
  }
  return out;
}
