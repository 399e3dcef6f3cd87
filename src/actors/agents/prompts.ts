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
  /** -d: sub-agents disabled for this run; the prompt drops what advertises their delegate_* tools. */
  disabledAgents?: readonly string[];
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
  const parts: string[] = withoutDisabled(rolePrompt(o), o.disabledAgents ?? []);
  if (o.projectContext.trim() !== '') {
    parts.push(['# Project context', '', 'Documents from the workspace root, verbatim. They are the project\'s own rules.', '', o.projectContext.trim()].join('\n'));
  }
  if (o.fullYolo) parts.push(AUTONOMY_INSTRUCTION);
  parts.push(languageInstruction(o.lang));
  return parts.join('\n\n') + '\n';
}

const AGENT_TITLES: Readonly<Record<string, string>> = { repo: 'Repo', coding: 'Coding', chat: 'Chat', devops: 'DevOps', browser: 'Browser', meta: 'Meta' };

/** Drops every list item or paragraph naming a disabled agent's `delegate_*` tool, and says once why. */
function withoutDisabled(role: string, disabled: readonly string[]): string[] {
  const named = disabled.filter((a) => role.includes(`\`delegate_${a}\``));
  if (named.length === 0) return [role];
  const kept: string[] = [];
  let block: string[] = [];
  const flush = (): void => {
    if (!block.some((l) => named.some((a) => l.includes(`\`delegate_${a}\``)))) kept.push(...block);
    block = [];
  };
  for (const line of role.split('\n')) {
    // a block is one list item (with its indented continuation) or one paragraph
    const starts = line.trim() === '' || /^(- |\d+\. )/.test(line) || (block.length > 0 && block[block.length - 1].trim() === '');
    if (starts) flush();
    block.push(line);
  }
  flush();
  const names = named.map((a) => AGENT_TITLES[a] ?? a).join(', ');
  const note = [
    '## Agents disabled for this run',
    '',
    `The user disabled these agents for this run: ${names}. You cannot delegate to them and their tools do not exist here.`,
    'Where these instructions send work to them, do it with the tools and agents you have, or say plainly in your answer what could not be done in this run.',
  ].join('\n');
  // a heading whose every item went (all agents disabled) goes too
  const body = kept.filter((l, i) => !/^#+ /.test(l) || !/^(#+ |$)/.test(kept.slice(i + 1).find((n) => n.trim() !== '') ?? ''));
  return [body.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd(), note];
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
