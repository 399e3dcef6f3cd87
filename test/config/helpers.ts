// Config test helpers: a minimal valid document and a parse shortcut with a private env.
import { parseConfigText, type YagentConfig } from '../../src/runtime/config/index.js';

export const BASE = `
[global.llm]
use_provider = "main"
[global.llm.providers.main]
model = "gpt-4o"
api_base_url = "http://127.0.0.1:1/v1"
api_key = "k"
`;

export function cfg(extra = '', env: Record<string, string> = {}): YagentConfig {
  return parseConfigText(`${BASE}\n${extra}`, '/tmp/test-config.toml', env);
}
