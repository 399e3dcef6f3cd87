// Model limits lookup and the compression threshold min(context × 0.75, configured), default 120000.
import { DEFAULTS, type YagentConfig } from '../../../runtime/config/index.js';
import { MODEL_CATALOGUE, type ModelLimits } from './models.js';

const KEYS = Object.keys(MODEL_CATALOGUE).sort((a, b) => b.length - a.length);

/** Exact id, else the longest catalogue id that prefixes it (after dropping a `vendor/` path). */
export function modelLimits(model: string): ModelLimits | undefined {
  const id = (model.split('/').pop() ?? model).toLowerCase();
  const exact = MODEL_CATALOGUE[id];
  if (exact !== undefined) return exact;
  const key = KEYS.find((k) => id.startsWith(k));
  return key !== undefined ? MODEL_CATALOGUE[key] : undefined;
}

/**
 * min(window × 0.75, configured); the window is the run's (config context_window, the server's, an overflow's), else
 * the catalogue's; with neither, 120000. YAGENT_COMPRESS_THRESHOLD (debug) beats all.
 */
export function compressionThreshold(cfg: Pick<YagentConfig, 'compression'>, model: string, window?: number): number {
  if (cfg.compression.envOverride !== undefined) return cfg.compression.envOverride;
  const context = window ?? modelLimits(model)?.context;
  const fromWindow = context !== undefined ? Math.floor(context * 0.75) : undefined;
  const candidates = [fromWindow, cfg.compression.threshold].filter((x): x is number => x !== undefined);
  return candidates.length > 0 ? Math.min(...candidates) : DEFAULTS.compressionThreshold;
}
