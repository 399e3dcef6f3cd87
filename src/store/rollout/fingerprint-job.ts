// Checkpoint fingerprint as a CPU-pool job: read, rebuild and digest a large rollout off the store's thread.
import { readRolloutForReplay } from './replay.js';

export const FINGERPRINT_JOB_MODULE = 'src/store/rollout/fingerprint-job.js';

export type Fingerprint = { ok: true; fingerprint: string; messageCount: number } | { ok: false; reason: string };

/** The one fingerprint rule (digest.ts) over the list rebuilt from the whole (drained) file. */
export async function fingerprint(input: { path: string }): Promise<Fingerprint> {
  const r = await readRolloutForReplay(input.path, 0);
  return r.ok ? { ok: true, fingerprint: r.fingerprint, messageCount: r.messages.length } : { ok: false, reason: r.reason };
}
