// Issue 23 item 8: a server on this machine needs no API key; anywhere else a missing key is still a config error.
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/runtime/config/loader.js';

const config = (url: string, extra = ''): string => `[global.llm]\nuse_provider = "p"\n[global.llm.providers.p]\napi_base_url = "${url}"\nmodel = "m"\n${extra}`;

describe('api_key on loopback', () => {
  for (const url of ['http://127.0.0.1:8080/v1', 'http://localhost:11434/v1', 'http://[::1]:8000/v1']) {
    it(`${url}: no key loads`, () => {
      expect(parseConfigText(config(url), 'c.toml', {}).providers.p?.apiKey).toBe('');
    });
  }
  it('a remote server without a key is a config error naming api_key', () => {
    expect(() => parseConfigText(config('https://llm.acme.test/v1'), 'c.toml', {})).toThrow(/provider "p" has no api_key/);
  });
  it('a loopback server whose api_key_env names an unset variable is still an error (the user asked for a key)', () => {
    expect(() => parseConfigText(config('http://127.0.0.1:8080/v1', 'api_key_env = "LLAMA_KEY"\n'), 'c.toml', {})).toThrow(/LLAMA_KEY/);
  });
});
