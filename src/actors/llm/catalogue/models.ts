// Bundled model catalogue: context and output limits of common models (matched by id prefix, longest first).
export interface ModelLimits {
  context: number;
  output: number;
}

export const MODEL_CATALOGUE: Readonly<Record<string, ModelLimits>> = {
  'gpt-4o': { context: 128_000, output: 16_384 },
  'gpt-4o-mini': { context: 128_000, output: 16_384 },
  'gpt-4.1': { context: 1_047_576, output: 32_768 },
  'gpt-4.1-mini': { context: 1_047_576, output: 32_768 },
  'gpt-5': { context: 400_000, output: 128_000 },
  'gpt-5-mini': { context: 400_000, output: 128_000 },
  o3: { context: 200_000, output: 100_000 },
  'o4-mini': { context: 200_000, output: 100_000 },
  'claude-opus-4': { context: 200_000, output: 32_000 },
  'claude-sonnet-4': { context: 200_000, output: 64_000 },
  'claude-3-7-sonnet': { context: 200_000, output: 64_000 },
  'claude-3-5-haiku': { context: 200_000, output: 8_192 },
  'claude-haiku-4': { context: 200_000, output: 64_000 },
  'deepseek-chat': { context: 128_000, output: 8_192 },
  'deepseek-reasoner': { context: 128_000, output: 64_000 },
  'qwen3-coder': { context: 262_144, output: 65_536 },
  'qwen3-coder-plus': { context: 1_000_000, output: 65_536 },
  'qwen2.5-coder': { context: 32_768, output: 8_192 },
  'qwen3': { context: 131_072, output: 32_768 },
  'kimi-k2': { context: 131_072, output: 16_384 },
  'glm-4.6': { context: 200_000, output: 128_000 },
  'gemini-2.5-pro': { context: 1_048_576, output: 65_536 },
  'gemini-2.5-flash': { context: 1_048_576, output: 65_536 },
  'llama3.1': { context: 131_072, output: 8_192 },
  'mistral-large': { context: 131_072, output: 8_192 },
  'codestral': { context: 256_000, output: 8_192 },
};
