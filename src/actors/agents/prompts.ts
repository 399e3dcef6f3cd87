// System-prompt assembler: role prompt + project context + autonomy (-Y) + language, per agent.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AUTONOMOUS_DECISION_INSTRUCTION } from '../tools/profiles.js';

export interface CustomAgentPromptVars {
  name: string;
  description: string;
  instructions: string;
}

export interface AssembleOptions {
  /** Built-in agent name, or 'custom' with `custom` set. */
  agent: string;
  /** Concatenated root docs (YAGENT.md, CLAUDE.md, AGENTS.md); empty when none exist. */
  projectContext: string;
  /** -Y: no one to ask; decide autonomously. */
  fullYolo: boolean;
  /** `[agent] lang`: language of field values and answers. */
  lang: string;
  custom?: CustomAgentPromptVars;
  maxSteps?: number;
}

/** -Y: the one instruction text lives with the tools profile that also removes ask_user_for_help. */
export const AUTONOMY_INSTRUCTION = `## Autonomous mode\n\n${AUTONOMOUS_DECISION_INSTRUCTION}`;

let cachedRoot: string | null = null;

/** Package root found by walking up from this module (works from src/ under vitest and from dist/). */
export function packageRoot(): string {
  if (cachedRoot) return cachedRoot;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'prompts'))) return (cachedRoot = dir);
    const up = dirname(dir);
    if (up === dir) throw new Error('prompts/ not found above ' + fileURLToPath(import.meta.url));
    dir = up;
  }
}

const promptCache = new Map<string, string>();

export function loadPrompt(name: string): string {
  let text = promptCache.get(name);
  if (text === undefined) {
    text = readFileSync(join(packageRoot(), 'prompts', `${name}.prompt.md`), 'utf8').trimEnd();
    promptCache.set(name, text);
  }
  return text;
}

export function assembleSystemPrompt(o: AssembleOptions): string {
  const parts: string[] = [rolePrompt(o)];
  if (o.projectContext.trim() !== '') {
    parts.push(['# Project context', '', 'Documents from the workspace root, verbatim. They are the project\'s own rules.', '', o.projectContext.trim()].join('\n'));
  }
  if (o.fullYolo) parts.push(AUTONOMY_INSTRUCTION);
  parts.push(languageInstruction(o.lang));
  return parts.join('\n\n') + '\n';
}

function rolePrompt(o: AssembleOptions): string {
  if (o.agent !== 'custom') return loadPrompt(o.agent);
  if (!o.custom) throw new Error('custom agent prompt needs its design');
  const vars: Record<string, string> = {
    name: o.custom.name,
    description: o.custom.description,
    instructions: o.custom.instructions.trim(),
    max_steps: String(o.maxSteps ?? 15),
  };
  return loadPrompt('custom').replace(/\{\{(\w+)\}\}/g, (m, k: string) => vars[k] ?? m);
}

export function languageInstruction(lang: string): string {
  const l = lang.trim() === '' ? 'English' : lang.trim();
  return [
    '## Language',
    '',
    `Write your answers, conclusions, facts and the values of <thought> fields in ${l}.`,
    'Keep tool names, JSON keys, <thought> keys, plan markers and tags in English.',
  ].join('\n');
}
