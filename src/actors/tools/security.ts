// The config's [security] section as the tools use it: one boundary policy and one shell env per agent run.
import type { YagentConfig } from '../../runtime/config/index.js';
import { boundaryPolicy, type BoundaryPolicy } from './boundary.js';
import { buildShellEnv } from './shell-env.js';

export interface ToolSecurity {
  policy: BoundaryPolicy;
  /** run_bash's child environment: provider keys and secret-looking names dropped. */
  shellEnv: NodeJS.ProcessEnv;
}

export function toolSecurity(config: Pick<YagentConfig, 'security'>, env: NodeJS.ProcessEnv = process.env): ToolSecurity {
  const s = config.security;
  return {
    policy: boundaryPolicy(env, s.allowRead),
    shellEnv: buildShellEnv(env, { secretNames: s.keyEnvNames, keep: s.shellEnvKeep }),
  };
}
