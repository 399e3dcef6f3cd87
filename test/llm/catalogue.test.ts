// Model catalogue → compression threshold (token counting: tokens.test.ts).
import { describe, expect, it } from 'vitest';
import { compressionThreshold, modelLimits } from '../../src/actors/llm/catalogue/catalogue.js';
import { cfg } from '../config/helpers.js';

describe('compression threshold', () => {
  it('is min(catalogue context × 0.75, configured); both are ceilings', () => {
    expect(modelLimits('gpt-4o')?.context).toBe(128_000);
    expect(compressionThreshold(cfg(), 'gpt-4o')).toBe(96_000);
    expect(compressionThreshold(cfg('[enhanced_commander]\ncontext_compression_threshold = 50000'), 'gpt-4o')).toBe(50_000);
    expect(compressionThreshold(cfg('[enhanced_commander]\ncontext_compression_threshold = 500000'), 'gpt-4o')).toBe(96_000);
  });

  it('defaults to 120000 when neither source has a value (the provider context_window reaches it as the run window, below)', () => {
    const c = cfg('context_window = 8000');
    expect(c.providers['main']?.contextWindow).toBe(8000);
    expect(compressionThreshold(c, 'some-unknown-model')).toBe(120_000);
  });

  it("the run's window (config context_window, the server's, an overflow's) replaces the catalogue's; configured still caps it", () => {
    expect(compressionThreshold(cfg(), 'some-unknown-model', 8192)).toBe(6144);
    expect(compressionThreshold(cfg(), 'gpt-4o', 8192)).toBe(6144);
    expect(compressionThreshold(cfg('[enhanced_commander]\ncontext_compression_threshold = 5000'), 'some-unknown-model', 8192)).toBe(5000);
    expect(compressionThreshold(cfg('', { YAGENT_COMPRESS_THRESHOLD: '3000' }), 'gpt-4o', 8192)).toBe(3000);
  });

  it('matches vendor-prefixed and dated ids by prefix', () => {
    expect(modelLimits('anthropic/claude-sonnet-4-20250514')?.context).toBe(200_000);
    expect(modelLimits('qwen3-coder-plus-2025')?.context).toBe(1_000_000);
  });

  it('YAGENT_COMPRESS_THRESHOLD beats catalogue and config', () => {
    expect(compressionThreshold(cfg('', { YAGENT_COMPRESS_THRESHOLD: '3000' }), 'gpt-4o')).toBe(3000);
  });
});
