// A new task's Director asks the model before the rest of the runtime is up (issue 29): the launcher's first act
// (early-boot.ts) computes the Director's first request with the code its thread runs (directorFirstCall, the engine
// and its SDK) and sends it from this thread; the Director's engine adopts the answer if its own first request has the
// same method, URL and body bytes, else this one is aborted and its own goes out (src/actors/llm/transport/presend.ts).
// Only where nothing can change that request after start: `-p PROMPT` (a new task: no session, no --provider/--model),
// no MCP server, no routing choice (no classifier call), no scripted model.
import { PresentOffer, createPresendState, PRESEND_SHARED_KEY } from '../../src/actors/llm/transport/presend.js';
import type { Command } from '../cli/args.js';
import type { YagentConfig } from '../../src/runtime/config/types.js';
import { trace } from './trace.js';

let state: SharedArrayBuffer | null = null;
let offer: PresentOffer | null = null;

/** The runtime's shared entry (the Director's engine reads it): present once an offer was made in this process. */
export function presendShared(): Record<string, SharedArrayBuffer> {
  return state !== null ? { [PRESEND_SHARED_KEY]: state } : {};
}

/** Drops a pre-sent request nobody claimed (the task was cancelled or ended first): its socket closes. */
export function dropPresend(): void {
  offer?.abort();
}

/** The prompt of a run whose Director's first request may be pre-sent, else null. */
export function presendPrompt(cmd: Command, env: NodeJS.ProcessEnv = process.env): string | null {
  if (cmd.kind !== 'headless' || !cmd.explicit || cmd.prompt === null || cmd.prompt.trim() === '' || cmd.attach) return null;
  // YAGENT_PRESEND=0: off (the Director sends its own first request, as before)
  if (cmd.session !== undefined || cmd.model !== undefined || env['YAGENT_FAKE_SCRIPT'] !== undefined || env['YAGENT_PRESEND'] === '0') return null;
  return cmd.prompt;
}

/** Once the request was handed to the transport: a promise of it written to the OS (never rejects); null when it
 *  was not sent (not eligible, or a failure: the Director then sends its own). */
export async function presendDirector(cmd: Command): Promise<Promise<void> | null> {
  return (await presendNow(cmd)) ? (offer?.written ?? null) : null;
}

async function presendNow(cmd: Command): Promise<boolean> {
  const prompt = presendPrompt(cmd);
  if (prompt === null || cmd.kind !== 'headless' || state !== null) return false;
  state = createPresendState();
  try {
    return await send(cmd.flags, prompt, state);
  } catch (e) {
    // a probe: whatever fails here fails again, with its own message, where the run does it
    trace(`presend: not sent (${e instanceof Error ? e.message : String(e)})`);
    return false;
  }
}

/** The run stops before any model call (bin/host/run-config.ts) when the global provider still has the template's
 *  placeholder key; the Director's own provider with it could only answer 401. */
function unusable(config: YagentConfig, director: string, placeholder: string): boolean {
  return Object.values(config.providers).some((p) => p.apiKey === placeholder && (p.name === config.globalProvider || p.name === director));
}

async function send(flags: Extract<Command, { kind: 'headless' }>['flags'], prompt: string, sab: SharedArrayBuffer): Promise<boolean> {
  // the config first: a run that cannot pre-send (MCP servers, a routing choice) loads nothing more here
  // the quick loader builds no zod schema for a config its plain-data check passes (a broken one goes through the
  // zod schema and throws loadConfig's error: nothing is sent, and the CLI reports it as it always did)
  const [{ loadConfigQuick }, { resolveProviderName }, { mcpInputFromConfig }, { canRoute }, { PLACEHOLDER_API_KEY }] = await Promise.all([
    import('../../src/runtime/config/quick-load.js'),
    import('../../src/runtime/config/resolve.js'),
    import('../../src/actors/mcp/client.js'),
    import('../../src/actors/llm/routing/router.js'),
    import('../../src/runtime/config/template.js'), // quick-load's read.ts has it loaded already
  ]);
  const { config, quick, created } = await loadConfigQuick(flags.config !== undefined ? { configPath: flags.config } : {});
  trace(`presend: config loaded${quick ? '' : ' (through the zod schema)'}`);
  const base = resolveProviderName(config, { agent: 'director' });
  const provider = config.providers[base];
  // a config the run refuses (just written, or a placeholder key: setup-state.ts) sends nothing: not the key, not the prompt
  if (created || unusable(config, base, PLACEHOLDER_API_KEY)) return false;
  if (provider === undefined || mcpInputFromConfig(config) !== null || (config.routing.mode !== 'fixed' && canRoute(config.routing.tiers, base))) return false;
  const [{ presendCall }, { settingsFrom }, { AgentRunInputSchema }, { directorFirstCall }, { dataRoot }] = await Promise.all([
    import('../../src/actors/llm/presend-call.js'),
    import('../../src/actors/agents/run-settings.js'),
    import('../../src/actors/agents/run-types.js'),
    import('../../src/actors/agents/first-call.js'),
    import('../../src/store/client.js'),
  ]);
  const o = { prompt, workspace: process.cwd(), config, ...(flags.config !== undefined ? { configPath: flags.config } : {}), yolo: flags.yolo, fullYolo: flags.fullYolo, disabledAgents: flags.disabledAgents };
  const input = AgentRunInputSchema.parse({ agent: 'director', role: 'director', brief: prompt, settings: settingsFrom(o, 'presend', 'presend'), delegationId: null, parentSessionId: null, freshBoard: true });
  const { messages, tools } = await directorFirstCall(config, input, dataRoot());
  trace('presend: the Director\'s first call computed');
  const made = new PresentOffer(sab);
  offer = made; // a cancel from here on drops it
  const handed = await presendCall(made, provider, { messages, tools, agent: 'director' }, config.llm.maxAnswerChars);
  trace(handed ? 'presend: the Director\'s first request is on its way' : 'presend: the Director sent its own first');
  return handed;
}
