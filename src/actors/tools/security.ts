// The config's [security] section as the tools use it: one boundary policy and one shell env per agent run.
import type { YagentConfig } from '../../runtime/config/index.js';
import { boundaryPolicy, type BoundaryPolicy } from './boundary.js';
import { shellSandbox, type ShellSandbox } from './sandbox-run.js';
import { buildShellEnv } from './shell-env.js';

export interface ToolSecurity {
  policy: BoundaryPolicy;
  /** run_bash's child environment: provider keys and secret-looking names dropped. */
  shellEnv: NodeJS.ProcessEnv;
  /** run_bash's OS sandbox (`[security] sandbox`, `sandbox_writable`). */
  sandbox: ShellSandbox;
}

export function toolSecurity(config: Pick<YagentConfig, 'security'>, env: NodeJS.ProcessEnv = process.env): ToolSecurity {
  const s = config.security;
  const policy = boundaryPolicy(env, s.allowRead);
  const shellEnv = buildShellEnv(env, { secretNames: s.keyEnvNames, keep: s.shellEnvKeep });
  return { policy, shellEnv, sandbox: shellSandbox(s.sandbox, s.sandboxWritable, shellEnv, policy.home) };
}
