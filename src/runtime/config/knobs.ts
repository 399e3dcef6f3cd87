// The two value conventions, each in one place: concurrency knobs vs valves whose zero means something.
export const DEFAULTS = {
  maxParallelReadonlyTools: 4,
  maxParallelDelegations: 2,
  maxConcurrency: 8,
  maxInFlightRequests: 8,
  maxReplayMessages: 2000,
  indexMaxNotes: 12,
  indexLineChars: 160,
  ttlMs: 168 * 3_600_000,
  summaryMaxRunes: 1200,
  maxNotesPerBoard: 200,
  compressionThreshold: 120_000,
  logKeepDays: 7,
  logMaxFileMb: 10,
  undoKeepDays: 7,
  undoMaxMb: 1024,
} as const;

/** Concurrency knob: 1 = serial, <= 0 or absent = default, > 8 clamped to 8. */
export function concurrencyKnob(v: number | undefined, dflt: number): number {
  if (v === undefined || v <= 0) return dflt;
  return Math.min(v, DEFAULTS.maxConcurrency);
}

/** Valve whose 0 has a meaning: absent or negative = default, present 0 (or more) = as written. */
export function valve(section: Record<string, unknown> | undefined, key: string, dflt: number): number {
  if (section === undefined || !Object.hasOwn(section, key)) return dflt;
  const v = section[key];
  return typeof v === 'number' && v >= 0 ? v : dflt;
}

/** Boolean whose default is true: only a present `false` turns it off. */
export function defaultTrue(section: Record<string, unknown> | undefined, key: string): boolean {
  if (section === undefined || !Object.hasOwn(section, key)) return true;
  return section[key] !== false;
}

/** `0` means "not set" for temperature / max_tokens. */
export function zeroIsUnset(v: number | undefined): number | undefined {
  return v === undefined || v === 0 ? undefined : v;
}

/** Positive value or the default (<= 0 means default; no "off" meaning). */
export function positiveOr(v: number | undefined, dflt: number): number {
  return v === undefined || v <= 0 ? dflt : v;
}
