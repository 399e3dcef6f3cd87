// loadConfig for the pre-sent first request (bin/host/presend.ts, issue 29): the same file, the same result, but the
// shape is checked by raw-spec.ts's plain-data twin of the zod schema first; only a document it is unsure of (a
// broken config among them) goes through the zod schema (loader.ts), so its error is the one loadConfig throws.
import { finishConfig, parseToml, readConfigFile, type LoadOptions } from './read.js';
import { quickRawCheck } from './raw-spec.js';
import type { YagentConfig } from './types.js';

/** loadConfig's config (or its ConfigError), building no zod schema for a config that passes the quick check. */
export async function loadConfigQuick(opts: LoadOptions = {}): Promise<{ config: YagentConfig; created: boolean; quick: boolean }> {
  const { path, text, created } = await readConfigFile(opts);
  const env = opts.env ?? process.env;
  const validate = opts.validate ?? true;
  const doc = parseToml(text, path);
  const raw = quickRawCheck(doc);
  if (raw !== null) return { config: finishConfig(raw, doc, path, env, validate), created, quick: true };
  const { parseConfigText } = await import('./loader.js');
  return { config: parseConfigText(text, path, env, validate), created, quick: false };
}
