// What a new run's first model call carries: its system prompt (role prompt, project context, sections) and its tools.
// runAgent builds its conversation with these functions; the CLI's main thread computes a new task's Director first
// call with the same ones (`directorFirstCall`, bin/host/presend.ts) and sends it before the Director's thread is up.
// The Director's engine claims that answer only for a request with the same bytes (src/actors/llm/transport/presend.ts).
import type { YagentConfig } from '../../runtime/config/index.js';
import type { ChatMessage, ToolDef } from '../../runtime/protocol/index.js';
import { assembleSystemPrompt } from './prompts.js';
import { flagsFor, type LoopFlags } from './profiles.js';
import { loadRootContext } from './project-context.js';
import type { AgentRunInputParsed } from './run-types.js';
import { runSurface } from './tool-wiring.js';
import { runToolExtras } from './agent-env.js';

/** The role's system prompt with the run's project context (root docs). */
export function runSystemPrompt(input: AgentRunInputParsed, projectContext: string, maxSteps: number): string {
  const s = input.settings;
  return assembleSystemPrompt({
    agent: input.role,
    projectContext,
    fullYolo: s.fullYolo,
    lang: s.lang,
    maxSteps,
    disabledAgents: s.disabledAgents,
    ...(input.custom ? { custom: { name: input.custom.name, description: input.custom.description, instructions: input.custom.system_prompt } } : {}),
  });
}

/** The deferred-tool catalogue (MCP) and the skills list follow the role prompt: stable for the whole run. */
export function withSections(system: string, sections: readonly string[]): string {
  return [system.trimEnd(), ...sections].join('\n\n') + '\n';
}

/** A fresh run's opening: the system prompt, then the brief. */
export function freshMessages(system: string, brief: string): [ChatMessage, ChatMessage] {
  return [{ role: 'system', content: system }, { role: 'user', content: brief }];
}

/** A run's loop flags (its steps limit is in the system prompt too). */
export function runFlags(input: AgentRunInputParsed): LoopFlags {
  const s = input.settings;
  return flagsFor(input.role === 'custom' ? input.agent : input.role, {
    maxSteps: s.maxStepsOverride,
    maxParallelReadOnlyTools: s.maxParallelReadOnlyTools,
    ...(s.stepRetries !== undefined ? { stepRetries: s.stepRetries } : {}),
  });
}

/** A new task's Director, first call: the messages and tools runAgent sends when nothing else (no MCP tools, no
 *  session, an empty board, no transient message) is added, as the pre-sent request needs them. */
export async function directorFirstCall(config: YagentConfig, input: AgentRunInputParsed, dataRoot: string): Promise<{ messages: ChatMessage[]; tools: ToolDef[] }> {
  const extras = runToolExtras(config, input, dataRoot);
  const surface = runSurface(input, extras, undefined);
  const sections = [surface.catalogueSection(), ...(extras.sections ?? [])].filter((t) => t !== '');
  const root = await loadRootContext(input.settings.workspace);
  const system = withSections(runSystemPrompt(input, root.text, runFlags(input).maxSteps), sections);
  return { messages: freshMessages(system, input.brief), tools: surface.defs() };
}
