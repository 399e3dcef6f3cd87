// Load-time config checks: unknown keys and sections (with the closest known key), reserved keys, api_base_url.
import { describe, expect, it } from 'vitest';
import { CONFIG_TEMPLATE, isConfigError, parseConfigText, type YagentConfig } from '../../src/runtime/config/index.js';
import { BASE, cfg } from './helpers.js';

const warningsOf = (extra: string): string[] => cfg(extra).warnings;

function configError(text: string): { lines: string[] } {
  try {
    parseConfigText(text, '/tmp/test-config.toml', {});
  } catch (err) {
    if (isConfigError(err)) return { lines: err.lines() };
    throw err;
  }
  throw new Error('expected a config error');
}

describe('config checks at load', () => {
  it('an unknown key is named once with the closest known key of its section', () => {
    const w = warningsOf('[llm]\ntimout = "30s"\nmax_retry = 3\n');
    expect(w.filter((x) => x.includes('llm.timout'))).toEqual(['unknown config key "llm.timout": did you mean "llm.timeout"?']);
    expect(w).toContain('unknown config key "llm.max_retry": did you mean "llm.max_retries"?');
  });

  it('an unknown provider key suggests the provider key it resembles', () => {
    const w = warningsOf('[global.llm.providers.main.x]\n').concat(cfg().warnings);
    expect(w.join('\n')).toMatch(/global\.llm\.providers\.main\.x/);
    const typo = parseConfigText(BASE.replace('api_key = "k"', 'api_key = "k"\napi_bse_url = "http://x"'), '/t.toml', {}).warnings;
    expect(typo).toEqual(['unknown config key "global.llm.providers.main.api_bse_url": did you mean "global.llm.providers.main.api_base_url"?']);
  });

  it('an unknown section is named; a near miss gets a suggestion, a key in the wrong section points at the right one', () => {
    const w = warningsOf('[routin]\nmode = "fixed"\n[frobnicate]\nx = 1\n[agent]\ncircuit_breaker_threshold = 2\n');
    expect(w).toContain('unknown config section [routin]: did you mean "routing"?');
    expect(w).toContain('unknown config section [frobnicate]: it is ignored');
    expect(w).toContain('unknown config key "agent.circuit_breaker_threshold": did you mean "llm.circuit_breaker_threshold"?');
  });

  it('[tools.llm] names only tools with a model of their own: another name warns with the closest tool', () => {
    const w = warningsOf('[tools.llm]\nuse_provider = "main"\ncompresion.use_provider = "main"\nfrobnicator.use_provider = "main"\ncompression.use_provider = "main"\n');
    expect(w).toEqual([
      'unknown tool "tools.llm.compresion": did you mean "tools.llm.compression"?',
      'unknown tool "tools.llm.frobnicator": no tool has a model of its own by that name (only compression does); it is ignored',
    ]);
  });

  it('removed keys are named with their replacement only, not also as unknown', () => {
    const w = warningsOf('[agent]\nmeta_max_steps = 3\n');
    expect(w).toHaveLength(1);
    expect(w[0]).toMatch(/was removed/);
  });

  it('a reserved key set away from its template default warns that it is not active yet; the template itself warns nothing', () => {
    const tpl: YagentConfig = parseConfigText(CONFIG_TEMPLATE, '/t.toml', {}, false);
    expect(tpl.warnings).toEqual([]);
    expect(warningsOf('[resume]\nreplay_token_budget = 0\n')).toEqual([]);
    const w = warningsOf('[resume]\nreplay_token_budget = 5\n[global.llm.providers.main.x]\n').filter((x) => x.includes('reserved'));
    expect(w).toEqual(['config key "resume.replay_token_budget" is reserved for pause / replay / degraded handoff (not built yet): its value changes nothing today']);
    // context_window is active (the TUI context bar): no warning any more
    expect(parseConfigText(BASE + 'context_window = 32000\n', '/t.toml', {}).warnings).toEqual([]);
  });

  it('api_base_url must be an http(s) URL: three lines (what / where / fix)', () => {
    for (const bad of ['localhost:11434/v1', 'not a url', 'ftp://x/v1']) {
      const { lines } = configError(BASE.replace('http://127.0.0.1:1/v1', bad));
      expect(lines[0]).toContain(`api_base_url "${bad}" of provider "main" is not an http(s) URL`);
      expect(lines[1]).toBe('  where: /tmp/test-config.toml: [global.llm.providers.main] api_base_url');
      expect(lines[2]).toMatch(/fix: .*https:\/\//);
    }
    expect(cfg().providers.main?.apiBaseUrl).toBe('http://127.0.0.1:1/v1');
  });
});
