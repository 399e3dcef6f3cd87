// Probes loopback for local OpenAI-compatible servers (llama.cpp, Ollama, LM Studio, vLLM) with short timeouts.
export interface LocalCandidate {
  name: string;
  port: number;
}

/** Each server's default port: llama-server 8080, Ollama 11434, LM Studio 1234, vLLM 8000. */
export const LOCAL_SERVERS: readonly LocalCandidate[] = [
  { name: 'llamacpp', port: 8080 },
  { name: 'ollama', port: 11434 },
  { name: 'lmstudio', port: 1234 },
  { name: 'vllm', port: 8000 },
];

export interface FoundServer {
  name: string;
  baseUrl: string;
  models: string[];
  /** It answered 401/403: it runs, but wants a key (llama-server --api-key, vLLM --api-key). */
  needsKey?: true;
}

/** GET <baseUrl>/models (with `apiKey` as a bearer token when given); null when nothing there answers like an OpenAI
 *  server (a 401/403 is a server wanting a key, or refusing the one sent). */
export async function probeBaseUrl(name: string, baseUrl: string, timeoutMs = 400, apiKey?: string): Promise<FoundServer | null> {
  try {
    const headers: Record<string, string> = apiKey !== undefined && apiKey !== '' ? { authorization: `Bearer ${apiKey}` } : {};
    const res = await fetch(`${baseUrl.replace(/\/+$/, '')}/models`, { headers, signal: AbortSignal.timeout(timeoutMs) });
    if (res.status === 401 || res.status === 403) return { name, baseUrl, models: [], needsKey: true };
    if (!res.ok) return null;
    const body = (await res.json()) as { data?: { id?: unknown }[] };
    if (!Array.isArray(body.data)) return null;
    const models = body.data.map((m) => m.id).filter((id): id is string => typeof id === 'string');
    return { name, baseUrl, models };
  } catch {
    return null;
  }
}

/** Every candidate on 127.0.0.1 at once. */
export async function probeLocal(candidates: readonly LocalCandidate[] = LOCAL_SERVERS, timeoutMs = 400): Promise<FoundServer[]> {
  const results = await Promise.all(candidates.map((c) => probeBaseUrl(c.name, `http://127.0.0.1:${c.port}/v1`, timeoutMs)));
  return results.filter((r): r is FoundServer => r !== null);
}

/** One line per server found: where, and what it lists or that it wants a key. */
export function describeFound(f: FoundServer): string {
  if (f.needsKey) return `${f.name} at ${f.baseUrl} answered 401: it wants an API key (add --api-key-env VAR, the variable holding the key the server was started with)`;
  return `${f.name} at ${f.baseUrl} (${f.models.length > 0 ? `models: ${f.models.slice(0, 8).join(', ')}${f.models.length > 8 ? `, … ${f.models.length - 8} more` : ''}` : 'no models listed'})`;
}

/** YAGENT_SETUP_PROBE="name=port,…" replaces the candidate list (tests; a non-default local port). */
export function candidatesFromEnv(env: NodeJS.ProcessEnv = process.env): readonly LocalCandidate[] {
  const raw = env.YAGENT_SETUP_PROBE;
  if (raw === undefined || raw === '') return LOCAL_SERVERS;
  return raw.split(',').flatMap((pair) => {
    const [name, port] = pair.split('=');
    const n = Number(port);
    return name && Number.isInteger(n) && n > 0 ? [{ name, port: n }] : [];
  });
}
