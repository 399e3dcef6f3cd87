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
 * Both sources are ceilings; with neither, 120000. The provider's context_window does not take part
 * (it only drives the TUI bar). YAGENT_COMPRESS_THRESHOLD (debug) beats both.
 */
export function compressionThreshold(cfg: Pick<YagentConfig, 'compression'>, model: string): number {
  if (cfg.compression.envOverride !== undefined) return cfg.compression.envOverride;
  const limits = modelLimits(model);
  const fromCatalogue = limits !== undefined ? Math.floor(limits.context * 0.75) : undefined;
  const candidates = [fromCatalogue, cfg.compression.threshold].filter((x): x is number => x !== undefined);
  return candidates.length > 0 ? Math.min(...candidates) : DEFAULTS.compressionThreshold;
}
