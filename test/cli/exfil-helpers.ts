// Helpers for the end-to-end exfiltration cases (issue 22): a config whose provider key sits in an env variable, and
// a scripted Coding agent that makes given tool calls while every request the model receives is logged unredacted.
import { readFileSync } from 'node:fs';

export const PROVIDER_KEY = 'sk-env-provider-key-0123456789';
export const MY_TOKEN = 'my-token-value-0123456789';
export const KEY_CONFIG = `[global.llm]
use_provider = "p"

[global.llm.providers.p]
api_format = "openai"
api_base_url = "http://127.0.0.1:9/v1"
model = "m"
api_key_env = "LLM_ACCESS"
`;

/** The env of a user holding both secrets: the provider's key variable and one of their own. */
export const withSecrets = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({ ...env, LLM_ACCESS: PROVIDER_KEY, MY_TOKEN });

const PRELUDE = `
import { appendFileSync } from 'node:fs';
const call = (name, args) => ({ text: '', toolCalls: [{ name, arguments: JSON.stringify(args) }], finishReason: 'tool_calls' });
const say = (text) => ({ text, finishReason: 'stop' });
const times = (n, step) => Array.from({ length: n }, () => step);
`;

export interface ScriptedCall {
  name: string;
  args: Record<string, unknown>;
  /** JS statements the model's step runs before it answers (it runs in the CLI process: a swap between two calls). */
  before?: string;
}

/** Director → coding; coding makes `calls`, one per step, then exits. Every request the model receives is appended
 *  to `log` (the fake provider runs in the CLI process): what the model saw, before any redaction. */
export function codingDoes(calls: ScriptedCall[], log: string, imports = ''): string {
  const seen = (step: string, before = ''): string => `(req) => { ${before}; appendFileSync(${JSON.stringify(log)}, JSON.stringify(req.body) + '\\n'); return ${step}; }`;
  return `${PRELUDE}${imports}
export default {
  director: [call('delegate_coding', { task: 'do it', context_refs: [] }), ...times(6, say('Done.'))],
  coding: [${calls.map((c) => seen(`call(${JSON.stringify(c.name)}, ${JSON.stringify(c.args)})`, c.before)).join(', ')},
    ${seen("call('agent_exit', { conclusion: 'done', facts: [], artifacts: [], status: 'ok' })")}, ...times(3, say('done'))],
};
`;
}

/** The tool results the Coding agent's model received, in order (its last request holds them all). */
export function toolResults(log: string): string[] {
  const lines = readFileSync(log, 'utf8').trim().split('\n');
  const last = JSON.parse(lines[lines.length - 1] ?? '{}') as { messages?: { role: string; content: unknown }[] };
  return (last.messages ?? []).filter((m) => m.role === 'tool').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
}
