// [agents.llm] and [routing.baselines] name agents, [agents.llm] and [tools.llm] name providers: a name that matches
// no agent is a choice nothing reads, and an empty use_provider resolves to no provider mid-run (issue 22: the run
// panicked, exit 1). Each is a ConfigError at load naming the key, with the closest name when there is one.
import { ConfigError } from './errors.js';
import type { RawConfig } from './schema.js';
import { AGENT_NAMES } from './types.js';
import { suggest } from './unknown-keys.js';

const agents: string[] = [...AGENT_NAMES];

function unknownAgent(section: string, key: string, path: string): ConfigError {
  const near = suggest(key, agents);
  return new ConfigError(
    `[${section}] names no agent "${key}"`,
    `${path}: [${section}] ${key}`,
    `${near !== undefined ? `did you mean "${near}"? ` : ''}the agents are ${agents.join(', ')}`,
  );
}

function emptyProvider(where: string, path: string): ConfigError {
  return new ConfigError('use_provider is empty', `${path}: ${where}`, 'name a provider defined under [global.llm.providers], or delete the key to inherit one');
}

/** `[<section>.llm]`: `use_provider = "<name>"` and `<name>.use_provider = "<provider>"` tables only. */
function checkUseProviders(section: 'agents' | 'tools', table: Record<string, unknown> | undefined, path: string): void {
  for (const [k, v] of Object.entries(table ?? {})) {
    if (k === 'use_provider') {
      if (v === '') throw emptyProvider(`[${section}.llm] use_provider`, path);
      continue;
    }
    if (section === 'agents' && !agents.includes(k)) throw unknownAgent('agents.llm', k, path);
    if (typeof v === 'string') {
      throw new ConfigError(`[${section}.llm] ${k} = "${v}" is not a table`, `${path}: [${section}.llm] ${k}`, `write ${k}.use_provider = "${v}"`);
    }
    if ((v as { use_provider?: unknown }).use_provider === '') throw emptyProvider(`[${section}.llm] ${k}.use_provider`, path);
  }
}

export function validateLlmSections(raw: RawConfig, path: string): void {
  checkUseProviders('agents', raw.agents?.llm, path);
  checkUseProviders('tools', raw.tools?.llm, path);
  for (const k of Object.keys(raw.routing?.baselines ?? {})) if (!agents.includes(k)) throw unknownAgent('routing.baselines', k, path);
}
