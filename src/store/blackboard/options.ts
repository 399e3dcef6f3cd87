// The blackboard's options from the normalised config: the kill switch, index and GC options.
import { blackboardDisabled, type Env } from '../../runtime/config/env.js';
import { DEFAULTS } from '../../runtime/config/knobs.js';
import type { YagentConfig } from '../../runtime/config/types.js';
import type { GcOptions, IndexOptions } from '../api.js';

/** Sentinel for "do not trim lines" (the config's explicit `index_line_chars = 0`). */
export const NO_TRIM = -1;

/** The normalised `[blackboard]` section: valves, ttl and caps were decided once, by key presence, in the config module. */
export type BlackboardConfig = YagentConfig['blackboard'];

/** The kill switch shared by write, read, index and GC (seed rule 2); decided by the config module's one function. */
export function blackboardEnabled(env: Env = process.env): boolean {
  return !blackboardDisabled(env);
}

/** Index options from the normalised config: explicit `index_line_chars = 0` becomes NO_TRIM, never a 0 budget. */
export function indexOptionsFromConfig(bb?: Pick<BlackboardConfig, 'enabled' | 'indexMaxNotes' | 'indexLineChars'>): IndexOptions {
  if (bb === undefined) return { maxNotes: DEFAULTS.indexMaxNotes, maxLineChars: DEFAULTS.indexLineChars };
  return { maxNotes: bb.enabled ? bb.indexMaxNotes : 0, maxLineChars: bb.indexLineChars === 0 ? NO_TRIM : bb.indexLineChars };
}

/** GC options from the normalised config: `ttl = "0"` arrives as ttlMs 0 (never by age); the cap is always positive. */
export function gcOptionsFromConfig(bb?: Pick<BlackboardConfig, 'ttlMs' | 'maxNotesPerBoard'>): GcOptions {
  if (bb === undefined) return { ttlMs: DEFAULTS.ttlMs, maxNotesPerBoard: DEFAULTS.maxNotesPerBoard };
  return { ttlMs: bb.ttlMs, maxNotesPerBoard: bb.maxNotesPerBoard };
}
