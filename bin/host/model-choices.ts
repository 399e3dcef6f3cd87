// `/model`'s picker: the providers of the config as it is NOW (re-read: one added since start is offered), whether
// each can work (a placeholder key or an unset key variable cannot), and the models each server lists (`/models`).
import { isLoopbackUrl, loadConfig, PLACEHOLDER_API_KEY } from '../../src/runtime/config/index.js';
import type { ProviderConfig, YagentConfig } from '../../src/runtime/config/types.js';

export interface ProviderChoice {
  name: string;
  /** The configured model. */
  model: string;
  baseUrl: string;
  /** Null: usable; else why the provider cannot work (said when it is picked). */
  refused: string | null;
  /** What the server lists (`GET {api_base_url}/models`); empty when it could not be asked (`listError`). */
  models: string[];
  listError?: string;
}

/** Why a provider cannot work, or null. */
export function refusal(p: ProviderConfig): string | null {
  if (p.model === '') return 'it has no model';
  if (p.apiBaseUrl === '') return 'it has no api_base_url';
  if (p.apiKey === PLACEHOLDER_API_KEY) return 'it still has the placeholder api key (REPLACE_WITH_YOUR_API_KEY): set api_key or api_key_env, or run /setup';
  if (p.apiKey === '' && p.apiKeyEnv !== undefined) return `its key variable ${p.apiKeyEnv} (api_key_env) is not set`;
  // a server on this machine needs no key (as the config loader says: llama.cpp, Ollama, vLLM, LM Studio)
  if (p.apiKey === '' && !isLoopbackUrl(p.apiBaseUrl)) return 'it has no api_key: set api_key or api_key_env, or run /setup';
  return null;
}

async function listModels(p: ProviderConfig, timeoutMs: number): Promise<{ models: string[]; error?: string }> {
  // a keyless loopback server gets no key header at all
  const key: Record<string, string> = p.apiKey === '' ? {} : p.apiFormat === 'anthropic' ? { 'x-api-key': p.apiKey } : { authorization: `Bearer ${p.apiKey}` };
  const headers: Record<string, string> = { ...key, ...(p.apiFormat === 'anthropic' ? { 'anthropic-version': '2023-06-01' } : {}) };
  try {
    const res = await fetch(`${p.apiBaseUrl.replace(/\/+$/, '')}/models`, { headers, signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return { models: [], error: `the server answered ${res.status} to GET /models` };
    const body = (await res.json()) as { data?: { id?: unknown }[] };
    const ids = Array.isArray(body.data) ? body.data.map((m) => m.id).filter((id): id is string => typeof id === 'string') : [];
    return { models: [...new Set(ids)].sort() };
  } catch (err) {
    // a listing is a convenience: the configured model is still offered
    return { models: [], error: `GET /models failed: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** The config's providers now, each with its refusal and its server's models (asked in parallel, usable ones only). */
export async function modelChoices(configPath: string | undefined, fallback: YagentConfig, timeoutMs = 2000): Promise<ProviderChoice[]> {
  // a config broken since start: the loaded one still describes what runs
  const config = await loadConfig({ ...(configPath !== undefined ? { configPath } : {}), validate: false }).then((r) => r.config, () => fallback);
  return Promise.all(
    Object.values(config.providers).map(async (p): Promise<ProviderChoice> => {
      const refused = refusal(p);
      const listed = refused === null ? await listModels(p, timeoutMs) : { models: [] };
      return { name: p.name, model: p.model, baseUrl: p.apiBaseUrl, refused, models: listed.models, ...(listed.error !== undefined ? { listError: listed.error } : {}) };
    }),
  );
}

/** Null when `provider` (and `model`, when given) can be switched to; else the reason, naming the alternatives. */
export function checkChoice(choices: readonly ProviderChoice[], provider: string, model?: string): string | null {
  const c = choices.find((x) => x.name === provider);
  if (!c) return `no provider "${provider}" in the config (configured: ${choices.map((x) => x.name).join(', ') || 'none'})`;
  if (c.refused !== null) return `provider "${provider}" cannot be used: ${c.refused}`;
  if (model !== undefined && model !== c.model && c.models.length > 0 && !c.models.includes(model)) return `the server of "${provider}" does not list model "${model}"`;
  return null;
}
