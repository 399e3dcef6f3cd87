// Probes loopback for local OpenAI-compatible servers (Ollama, LM Studio, llama.cpp) with short timeouts.
export interface LocalCandidate {
  name: string;
  port: number;
}

export const LOCAL_SERVERS: readonly LocalCandidate[] = [
  { name: 'ollama', port: 11434 },
  { name: 'lmstudio', port: 1234 },
  { name: 'llamacpp', port: 8080 },
];

export interface FoundServer {
  name: string;
  baseUrl: string;
  models: string[];
}

/** GET /v1/models on 127.0.0.1 only; anything that does not answer like an OpenAI server is skipped. */
export async function probeLocal(candidates: readonly LocalCandidate[] = LOCAL_SERVERS, timeoutMs = 400): Promise<FoundServer[]> {
  const results = await Promise.all(
    candidates.map(async (c): Promise<FoundServer | null> => {
      const baseUrl = `http://127.0.0.1:${c.port}/v1`;
      try {
        const res = await fetch(`${baseUrl}/models`, { signal: AbortSignal.timeout(timeoutMs) });
        if (!res.ok) return null;
        const body = (await res.json()) as { data?: { id?: unknown }[] };
        if (!Array.isArray(body.data)) return null;
        const models = body.data.map((m) => m.id).filter((id): id is string => typeof id === 'string');
        return { name: c.name, baseUrl, models };
      } catch {
        return null;
      }
    }),
  );
  return results.filter((r): r is FoundServer => r !== null);
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
