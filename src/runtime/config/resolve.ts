// Provider resolution chain and validation of every provider something refers to.
import { ConfigError } from './errors.js';
import { isLoopbackUrl } from './loopback.js';
import type { ProviderConfig, YagentConfig } from './types.js';
import { suggest } from './unknown-keys.js';

/** provider name → its api_key_env variable name (to name a missing variable). */
export type RawProviderEnv = Record<string, string | undefined>;

/** tool → tools.llm.use_provider → agent → agents.llm.use_provider → global.llm.use_provider. */
export function resolveProviderName(cfg: YagentConfig, who: { agent?: string | undefined; tool?: string | undefined }): string {
  if (who.tool !== undefined) {
    const t = cfg.toolProviders[who.tool] ?? cfg.toolsDefaultProvider;
    if (t !== undefined) return t;
  }
  if (who.agent !== undefined) {
    const a = cfg.agentProviders[who.agent];
    if (a !== undefined) return a;
  }
  return cfg.agentsDefaultProvider ?? cfg.globalProvider;
}

export function resolveProvider(cfg: YagentConfig, who: { agent?: string | undefined; tool?: string | undefined }): ProviderConfig {
  const name = resolveProviderName(cfg, who);
  const p = cfg.providers[name];
  if (p === undefined) throw new ConfigError(`provider "${name}" is not defined`, cfg.path, `add a [global.llm.providers.${name}] table or change use_provider`);
  return p;
}

/** Every provider name any use_provider, routing tier or fallback list points at (with where it is named). */
export function referencedProviders(cfg: YagentConfig): Map<string, string> {
  const refs = new Map<string, string>();
  const add = (name: string | undefined, where: string): void => {
    if (name !== undefined && name !== '' && !refs.has(name)) refs.set(name, where);
  };
  add(cfg.globalProvider, '[global.llm] use_provider');
  add(cfg.agentsDefaultProvider, '[agents.llm] use_provider');
  for (const [k, v] of Object.entries(cfg.agentProviders)) add(v, `[agents.llm] ${k}.use_provider`);
  add(cfg.toolsDefaultProvider, '[tools.llm] use_provider');
  for (const [k, v] of Object.entries(cfg.toolProviders)) add(v, `[tools.llm] ${k}.use_provider`);
  for (const [k, v] of Object.entries(cfg.routing.tiers)) add(v, `[routing.tiers] ${k}`);
  for (const p of Object.values(cfg.providers)) {
    for (const f of p.fallbackProviders) add(f.provider, `[global.llm.providers.${p.name}] fallback_providers`);
  }
  return refs;
}

/** The effective providers' api_base_url, api_key and model are required; the missing one is named. */
/** Every api_base_url that is set must be an http(s) URL: caught at load, not as "Connection error." minutes later. */
function validateBaseUrls(cfg: YagentConfig): void {
  for (const p of Object.values(cfg.providers)) {
    if (p.apiBaseUrl === '') continue;
    let protocol = '';
    try {
      protocol = new URL(p.apiBaseUrl).protocol;
    } catch {
      // not a URL at all: protocol stays empty
    }
    if (protocol !== 'http:' && protocol !== 'https:') {
      throw new ConfigError(`api_base_url "${p.apiBaseUrl}" of provider "${p.name}" is not an http(s) URL`, `${cfg.path}: [global.llm.providers.${p.name}] api_base_url`, 'write it like "https://api.openai.com/v1" or "http://localhost:11434/v1"');
    }
  }
}

/** A required key that is missing, and the provider table's unknown key that looks like its typo ("api_base_ur"). */
function missing(key: string, name: string, unknownKeys: Record<string, readonly string[]>): string {
  const typo = (unknownKeys[name] ?? []).find((k) => suggest(k, [key]) === key);
  return typo !== undefined ? `provider "${name}" has no ${key}, but has an unknown key "${typo}": did you mean "${key}"?` : `provider "${name}" has no ${key}`;
}

/** `unknownKeys`: per provider, the keys of its table the schema does not know (typo candidates). */
export function validateProviders(cfg: YagentConfig, rawEnv: RawProviderEnv, unknownKeys: Record<string, readonly string[]> = {}): void {
  validateBaseUrls(cfg);
  if (cfg.globalProvider === '') {
    throw new ConfigError('no default provider is chosen', `${cfg.path}: [global.llm] use_provider`, 'set use_provider to the name of a [global.llm.providers.<name>] table (or run `yagent setup`)');
  }
  for (const [name, where] of referencedProviders(cfg)) {
    const p = cfg.providers[name];
    if (p === undefined) {
      const near = suggest(name, Object.keys(cfg.providers));
      const hint = near !== undefined ? `did you mean "${near}"? ` : '';
      throw new ConfigError(`provider "${name}" is not defined`, `${cfg.path}: ${where}`, `${hint}add [global.llm.providers.${name}] or point ${where} at an existing provider`);
    }
    const at = `${cfg.path}: [global.llm.providers.${name}]`;
    if (p.model === '') throw new ConfigError(missing('model', name, unknownKeys), `${at} model`, 'set model = "<model id>"');
    if (p.apiBaseUrl === '') throw new ConfigError(missing('api_base_url', name, unknownKeys), `${at} api_base_url`, 'set api_base_url (e.g. "https://api.openai.com/v1" or "http://localhost:11434/v1")');
    if (p.apiKey === '') {
      const envName = rawEnv[name];
      // a server on this machine needs no key (llama.cpp, Ollama, vLLM, LM Studio), unless a variable was named for one
      if (envName === undefined && isLoopbackUrl(p.apiBaseUrl)) continue;
      if (envName !== undefined) {
        throw new ConfigError(`environment variable ${envName} (api_key_env of provider "${name}") is not set`, `${at} api_key_env`, `export ${envName}=<your key>, or set api_key in the file`);
      }
      throw new ConfigError(missing('api_key', name, unknownKeys), `${at} api_key`, 'set api_key, or api_key_env = "<ENV VAR NAME>" (a server on loopback needs neither)');
    }
  }
}

/** `--model`: a copy of the config whose provider `name` uses `model` (one run's view; the file is not touched). */
export function withProviderModel(cfg: YagentConfig, name: string, model: string): YagentConfig {
  const p = cfg.providers[name];
  if (p === undefined || p.model === model) return cfg;
  return { ...cfg, providers: { ...cfg.providers, [name]: { ...p, model } } };
}
