// What a local OpenAI-compatible server says about its context window, read where each server tells it:
// llama.cpp `/props` default_generation_settings.n_ctx (a slot's window, what its overflow error names) and
// `/v1/models` meta.n_ctx; vLLM `/v1/models` max_model_len; Ollama `/api/ps` context_length (the loaded runner) and
// `/api/show` parameters num_ctx (the Modelfile); LM Studio `/api/v0/models/{id}` loaded_context_length.
// Training sizes (n_ctx_train, Ollama's <arch>.context_length, LM Studio's max_context_length) are never the window.

/** What the probe learned: the window, where it came from, and a line for the user when it cannot be known. */
export interface ServerWindow {
  tokens?: number;
  source: string;
  note?: string;
  /** Ask again after the first answer: the server decides the window when it loads the model (Ollama). */
  recheck?: boolean;
}

export interface ProbeTarget {
  baseUrl: string;
  model: string;
  apiKey: string;
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const posInt = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined);

/** Ollama decides the window when it loads the model (OLLAMA_CONTEXT_LENGTH, else by VRAM: 4096 on most machines,
 *  2048 before 0.6) and cuts a longer prompt silently over /v1 (ollama/ollama#4967). */
export const OLLAMA_NOTE = "Ollama's default (often 4096 tokens) cuts longer prompts silently: start it with OLLAMA_CONTEXT_LENGTH=32768, or set context_window";

/** One GET/POST answered 2xx with a JSON object, else null (a server without that endpoint answers 404). */
async function getJson(fetchImpl: typeof fetch, url: string, t: ProbeTarget, timeoutMs: number, body?: Json): Promise<Json | null> {
  try {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (t.apiKey !== '') headers.authorization = `Bearer ${t.apiKey}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetchImpl(url, { method: body === undefined ? 'GET' : 'POST', headers, signal: AbortSignal.timeout(timeoutMs), ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    // read in full either way: a small answer, and the socket goes back to the pool
    const text = await res.text();
    if (!res.ok) return null;
    const v: unknown = JSON.parse(text);
    return isObj(v) ? v : null;
  } catch {
    return null;
  }
}

/** The model's entry: its id (or an alias, or Ollama's implied `:latest`), else the only one a single-model server lists. */
function entryFor(list: Json | null, model: string): Json | undefined {
  const data = Array.isArray(list?.data) ? list.data.filter(isObj) : [];
  const names = (e: Json): unknown[] => [e.id, e.name, e.model, ...(Array.isArray(e.aliases) ? e.aliases : [])];
  const hit = data.find((e) => names(e).some((n) => n === model || n === `${model}:latest`));
  return hit ?? (data.length === 1 ? data[0] : undefined);
}

async function llamaCpp(fetchImpl: typeof fetch, root: string, entry: Json, t: ProbeTarget, ms: number): Promise<ServerWindow | undefined> {
  const props = await getJson(fetchImpl, `${root}/props`, t, ms);
  const slot = isObj(props?.default_generation_settings) ? posInt(props.default_generation_settings.n_ctx) : undefined;
  if (slot !== undefined) return { tokens: slot, source: 'llama.cpp /props n_ctx' };
  const meta = isObj(entry.meta) ? posInt(entry.meta.n_ctx) : undefined;
  return meta !== undefined ? { tokens: meta, source: 'llama.cpp /v1/models meta.n_ctx' } : undefined;
}

async function ollama(fetchImpl: typeof fetch, root: string, t: ProbeTarget, ms: number): Promise<ServerWindow | undefined> {
  const [ps, show] = await Promise.all([getJson(fetchImpl, `${root}/api/ps`, t, ms), getJson(fetchImpl, `${root}/api/show`, t, ms, { model: t.model })]);
  const loaded = posInt(entryFor(ps === null ? null : { data: Array.isArray(ps.models) ? ps.models : [] }, t.model)?.context_length);
  if (loaded !== undefined) return { tokens: loaded, source: 'Ollama /api/ps context_length' };
  if (show === null) return undefined;
  const numCtx = typeof show.parameters === 'string' ? /^num_ctx\s+(\d+)/m.exec(show.parameters)?.[1] : undefined;
  if (numCtx !== undefined) return { tokens: Number(numCtx), source: 'Ollama /api/show num_ctx' };
  return { source: 'Ollama (default context)', note: OLLAMA_NOTE, recheck: true };
}

async function lmStudio(fetchImpl: typeof fetch, root: string, t: ProbeTarget, ms: number): Promise<ServerWindow | undefined> {
  const m = await getJson(fetchImpl, `${root}/api/v0/models/${encodeURIComponent(t.model)}`, t, ms);
  const loaded = posInt(m?.loaded_context_length);
  return loaded !== undefined ? { tokens: loaded, source: 'LM Studio /api/v0 loaded_context_length' } : undefined;
}

/** Asks the server; undefined when it says nothing about its window (a cloud API, an unknown server). */
export async function probeServerWindow(t: ProbeTarget, fetchImpl: typeof fetch, timeoutMs = 1500): Promise<ServerWindow | undefined> {
  const base = t.baseUrl.replace(/\/+$/, '');
  const root = base.replace(/\/v1$/, '');
  const entry = entryFor(await getJson(fetchImpl, `${base}/models`, t, timeoutMs), t.model);
  if (entry !== undefined && (entry.owned_by === 'llamacpp' || isObj(entry.meta))) {
    const w = await llamaCpp(fetchImpl, root, entry, t, timeoutMs);
    if (w !== undefined) return w;
  }
  const vllm = posInt(entry?.max_model_len);
  if (vllm !== undefined) return { tokens: vllm, source: 'vLLM /v1/models max_model_len' };
  const listed = posInt(entry?.context_length);
  if (listed !== undefined) return { tokens: listed, source: '/v1/models context_length' };
  const [o, l] = await Promise.all([ollama(fetchImpl, root, t, timeoutMs), lmStudio(fetchImpl, root, t, timeoutMs)]);
  return l ?? o;
}
