// Loads the agent's provider SDK and fetch while its run waits for the store's first answer (the agent actor starts
// it once the rollout's opening is posted), instead of between the first request and the wire.
import { resolveProvider, type YagentConfig } from '../../runtime/config/index.js';
import { trace } from '../../runtime/trace.js';

const SDK_OF = { openai: 'openai', anthropic: '@anthropic-ai/sdk' } as const;

/** The SDK package the agent's primary provider speaks; null when the config cannot name one (the engine reports it). */
export function sdkModuleFor(config: YagentConfig, agent: string): string | null {
  try {
    return SDK_OF[resolveProvider(config, { agent }).apiFormat];
  } catch {
    return null;
  }
}

/** Imports it, then loads the fetch both SDKs send with (Node's undici, ~40 ms of CPU on its first use in a thread)
 *  through a data: URL (no connection); a failure is left to the engine's first call, which reports it. */
export async function prefetchSdk(config: YagentConfig, agent: string): Promise<void> {
  const spec = sdkModuleFor(config, agent);
  if (spec === null) return;
  trace(`sdk prefetch: ${spec} and fetch`);
  await import(spec).then(
    () => undefined,
    () => undefined,
  );
  await fetch('data:,').then(
    (r) => r.arrayBuffer(),
    () => undefined,
  );
  trace('sdk prefetch done');
}
