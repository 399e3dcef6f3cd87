// Loads the agent's provider SDK and the model transport's scheme module while its run reads the root docs (the agent
// actor starts it one turn after the run, once the rollout's opening is posted), instead of between the first request
// and the wire.
import { resolveProvider, type YagentConfig } from '../../runtime/config/index.js';
import { nodeHttp, nodeHttps } from '../../runtime/lazy-builtins.js';
import { trace } from '../../runtime/trace.js';

const SDK_OF = { openai: 'openai', anthropic: '@anthropic-ai/sdk' } as const;

/** The SDK package and base URL of the agent's primary provider; null when the config cannot name one (the engine
 *  reports it). */
function primaryOf(config: YagentConfig, agent: string): { spec: string; url: string } | null {
  try {
    const p = resolveProvider(config, { agent });
    return { spec: SDK_OF[p.apiFormat], url: p.apiBaseUrl };
  } catch {
    return null;
  }
}

/** The SDK package the agent's primary provider speaks; null when the config cannot name one. */
export function sdkModuleFor(config: YagentConfig, agent: string): string | null {
  return primaryOf(config, agent)?.spec ?? null;
}

/** Imports the SDK, then node:http or node:https (what src/actors/llm/transport sends with); a failure is left to the
 *  engine's first call, which reports it. */
export async function prefetchSdk(config: YagentConfig, agent: string): Promise<void> {
  const primary = primaryOf(config, agent);
  if (primary === null) return;
  trace(`sdk prefetch: ${primary.spec} and the transport`);
  await import(primary.spec).then(
    () => undefined,
    () => undefined,
  );
  if (primary.url.startsWith('https:')) nodeHttps();
  else nodeHttp();
  trace('sdk prefetch done');
}
