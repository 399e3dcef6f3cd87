// Keys that no longer exist: each is named at start-up with its replacement (registry mirrored by a test fixture).
export interface RemovedKey {
  /** Dotted path; `*` matches one table name (e.g. a provider). */
  path: string;
  hint: string;
}

export const REMOVED_KEYS: readonly RemovedKey[] = [
  { path: 'blackboard.enabled', hint: 'remove it; turn the blackboard off with YAGENT_BLACKBOARD=0' },
  { path: 'resume.enabled', hint: 'renamed to [resume] enable; the whole feature exits with YAGENT_RESUME=0' },
  { path: 'enhanced_commander.enable_knowledge_injection', hint: 'knowledge injection was removed; the blueprint is the repository knowledge sink ([blueprint] enable)' },
  { path: 'memory', hint: 'the KV repository memory was removed; use [blueprint]' },
  { path: 'compression.enabled', hint: 'use [enhanced_commander] enable_context_compression (the only compression switch)' },
  { path: 'global.llm.providers.*.aws_region', hint: 'there is no Bedrock client: set api_base_url and api_key like any provider' },
  { path: 'global.llm.providers.*.bedrock', hint: 'there is no Bedrock client: set api_base_url and api_key like any provider' },
  { path: 'agent.meta_max_steps', hint: 'remove it; Meta always runs one step (it designs an agent and exits)' },
  { path: 'llm.context_window', hint: 'set context_window on the provider ([global.llm.providers.<name>]); it only drives the TUI bar' },
];

function lookup(doc: unknown, parts: string[]): boolean {
  if (parts.length === 0) return true;
  if (typeof doc !== 'object' || doc === null) return false;
  const [head, ...rest] = parts;
  const rec = doc as Record<string, unknown>;
  if (head === '*') return Object.values(rec).some((v) => lookup(v, rest));
  return head !== undefined && Object.hasOwn(rec, head) && lookup(rec[head], rest);
}

/** One warning line per removed key still present in the document. */
export function removedKeyWarnings(doc: unknown, registry: readonly RemovedKey[] = REMOVED_KEYS): string[] {
  return registry.filter((k) => lookup(doc, k.path.split('.'))).map((k) => `config key "${k.path}" was removed: ${k.hint}`);
}
