// `yagent setup`: writes a provider block through the comment-preserving write-back; works on a broken config.
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import { isConfigError } from '../../src/runtime/config/errors.js';
import { defaultConfigPath, ensureConfigExists, parseConfigText } from '../../src/runtime/config/loader.js';
import { setKeyInSection, writeConfigText } from '../../src/runtime/config/persist.js';
import { setupState } from '../../src/runtime/config/setup-state.js';
import { printConfigWarnings } from '../host/run-config.js';
import type { SetupFlags } from './args.js';
import { CliError, EXIT, type ExitCode } from './exit-codes.js';
import type { Streams } from './output.js';
import { candidatesFromEnv, describeFound, probeBaseUrl, probeLocal, type FoundServer } from './probe.js';

export interface ProviderBlock {
  name: string;
  format: 'openai' | 'anthropic';
  baseUrl: string;
  model: string;
  apiKeyEnv: string | undefined;
  apiKey: string | undefined;
}

/** Pure text edit: every key through setKeyInSection, so comments and unrelated keys survive. */
export function writeProviderBlock(text: string, p: ProviderBlock): string {
  const section = `global.llm.providers.${p.name}`;
  let t = setKeyInSection(text, section, 'api_format', p.format);
  t = setKeyInSection(t, section, 'api_base_url', p.baseUrl);
  t = setKeyInSection(t, section, 'model', p.model);
  if (p.apiKeyEnv !== undefined) t = setKeyInSection(t, section, 'api_key_env', p.apiKeyEnv);
  if (p.apiKey !== undefined) t = setKeyInSection(t, section, 'api_key', p.apiKey);
  return setKeyInSection(t, 'global.llm', 'use_provider', p.name);
}

/** The flags' provider; the model the server lists first when --model is absent (the server is asked unless --no-probe). */
async function providerFromFlags(s: SetupFlags, found: FoundServer[], io: Streams): Promise<ProviderBlock | null> {
  const local = found.find((f) => f.name === s.provider);
  const baseUrl = s.baseUrl ?? local?.baseUrl;
  if (s.provider === undefined || baseUrl === undefined) return null;
  let server = local?.baseUrl === baseUrl ? local : s.probe ? await probeBaseUrl(s.provider, baseUrl) : null;
  // a server started with a key lists its models only to that key: asked again with what the variable holds
  const key = s.apiKeyEnv !== undefined ? process.env[s.apiKeyEnv] : undefined;
  if (server?.needsKey && key !== undefined && key !== '') server = await probeBaseUrl(s.provider, baseUrl, 2000, key);
  if (server?.needsKey && s.apiKeyEnv === undefined) {
    throw new CliError(`the server at ${baseUrl} answered 401: it wants an API key`, EXIT.error, baseUrl, `add --api-key-env VAR (the variable holding the key the server was started with)`);
  }
  if (server?.needsKey && key !== undefined && key !== '') {
    throw new CliError(`the server at ${baseUrl} refused the key in ${s.apiKeyEnv} (401)`, EXIT.error, baseUrl, `check that ${s.apiKeyEnv} holds the key the server was started with (llama-server or vLLM --api-key)`);
  }
  const listed = server?.models ?? [];
  const model = s.model ?? listed[0];
  if (model === undefined) {
    const why = server === null ? (s.probe ? 'did not answer GET /models' : 'was not asked (--no-probe)') : server.needsKey ? `lists its models only with its key, and ${s.apiKeyEnv} is not set` : 'lists no model';
    throw new CliError(`no --model, and the server at ${baseUrl} ${why}`, EXIT.error, baseUrl, 'add --model MODEL (the id the server serves)');
  }
  if (s.model === undefined && listed.length > 1) io.stderr(`model: ${model} (the server also lists: ${listed.slice(1, 9).join(', ')}; choose with --model)\n`);
  if (s.model !== undefined && listed.length > 0 && !listed.includes(s.model)) io.stderr(`warning: the server does not list model "${s.model}" (it lists: ${listed.slice(0, 8).join(', ')})\n`);
  const format = s.format ?? 'openai';
  if (format !== 'openai' && format !== 'anthropic') throw new CliError(`--format must be openai or anthropic, got "${format}"`, EXIT.error);
  // a loopback server needs no key (the config accepts none); a cloud provider gets its key from the environment, never from argv
  return { name: s.provider, format, baseUrl, model, apiKeyEnv: s.apiKeyEnv, apiKey: undefined };
}

/** Ctrl-C or Ctrl-D at a setup question: nothing is written, exit 130. */
export class SetupCancelled extends Error {}

/** The terminal setup talks to (stdin/stderr; tests pass their own). */
export interface SetupTerminal {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

/** An environment variable's name (what `api_key_env` takes); anything else typed at the key question is the key. */
const ENV_NAME = /^[A-Z_][A-Z0-9_]*$/;

/** The key question's answer → where the key lives: a variable named in the config, or the key itself (0600 file). */
function keyAnswer(answer: string): Pick<ProviderBlock, 'apiKeyEnv' | 'apiKey'> {
  const a = answer.trim();
  return ENV_NAME.test(a) ? { apiKeyEnv: a, apiKey: undefined } : { apiKeyEnv: undefined, apiKey: a || undefined };
}

async function ask(found: FoundServer[], io: Streams, term: SetupTerminal): Promise<ProviderBlock | null> {
  // readline writes through this: muted while a hidden answer is typed, so a pasted key is never shown
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      if (!muted) term.output.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input: term.input, output, terminal: (term.input as { isTTY?: boolean }).isTTY === true });
  // readline pauses on Ctrl-C when nobody listens and leaves a pending question hanging on Ctrl-D (EOF)
  const cancel = new AbortController();
  rl.on('SIGINT', () => cancel.abort());
  rl.on('close', () => cancel.abort());
  const question = async (q: string, hidden = false): Promise<string> => {
    // a hidden answer: the prompt goes straight to the terminal, readline's echo (and its redraws) are muted
    muted = hidden;
    if (hidden) term.output.write(q);
    try {
      return await rl.question(hidden ? '' : q, { signal: cancel.signal });
    } catch (err) {
      if (cancel.signal.aborted) throw new SetupCancelled('setup cancelled');
      throw err;
    } finally {
      muted = false;
      if (hidden) term.output.write('\n');
    }
  };
  try {
    found.forEach((f, i) => io.stderr(`  ${i + 1}) ${describeFound(f)}\n`));
    io.stderr(`  ${found.length + 1}) another OpenAI-compatible or Anthropic endpoint\n`);
    const pick = Number((await question('choose: ')).trim());
    const local = found[pick - 1];
    if (local) {
      // the models the server lists, by number or by name
      local.models.forEach((m, i) => io.stderr(`     ${i + 1}) ${m}\n`));
      const answer = (await question(`model [${local.models[0] ?? ''}]: `)).trim();
      const model = local.models[Number(answer) - 1] ?? (answer || local.models[0]);
      const key = local.needsKey ? keyAnswer(await question('the server wants an API key: the key, or the environment variable holding it (input hidden): ', true)) : { apiKeyEnv: undefined, apiKey: undefined };
      return model ? { name: local.name, format: 'openai', baseUrl: local.baseUrl, model, ...key } : null;
    }
    const name = (await question('provider name (e.g. openai): ')).trim();
    const format = (await question('api format [openai|anthropic] (openai): ')).trim() || 'openai';
    const baseUrl = (await question('api base url: ')).trim();
    const model = (await question('model: ')).trim();
    const key = keyAnswer(await question('API key, or the environment variable holding it (e.g. OPENAI_API_KEY; input hidden): ', true));
    if (!name || !baseUrl || !model || (format !== 'openai' && format !== 'anthropic')) return null;
    return { name, format, baseUrl, model, ...key };
  } finally {
    rl.close();
  }
}

export async function runSetup(configFlag: string | undefined, s: SetupFlags, io: Streams, interactive: boolean, term: SetupTerminal = { input: process.stdin, output: process.stderr }): Promise<ExitCode> {
  const path = configFlag ?? defaultConfigPath();
  if (configFlag === undefined) await ensureConfigExists(path);
  else if (!existsSync(path)) throw new CliError('config file not found', EXIT.config, path, 'check the --config path (it is never created for you)');
  const state = await setupState({ configPath: path });
  io.stderr(`yagent setup: ${path} (${state.state === 'broken' ? `broken: ${state.error.what}` : state.state})\n`);
  if (state.state !== 'broken') printConfigWarnings(state.config, io);
  const found = s.probe ? await probeLocal(candidatesFromEnv()) : [];
  if (found.length > 0) io.stderr(`found local servers:\n${found.map((f) => `  ${describeFound(f)}\n`).join('')}`);
  let block = await providerFromFlags(s, found, io);
  if (block === null && interactive) {
    try {
      block = await ask(found, io, term);
    } catch (err) {
      if (!(err instanceof SetupCancelled)) throw err;
      io.stderr('\nyagent setup: cancelled; the config was not changed\n');
      return EXIT.cancelled;
    }
  }
  if (block === null) {
    const hint = found[0] ? `yagent setup --provider ${found[0].name}` : 'yagent setup --provider NAME --base-url URL --model MODEL --api-key-env VAR [--format openai|anthropic]';
    throw new CliError('setup needs a provider', EXIT.error, path, `run \`${hint}\``);
  }
  const text = readFileSync(path, 'utf8');
  const next = writeProviderBlock(text, block);
  // setup never leaves a config it would itself reject: the new text is loaded first, written only if it loads
  try {
    parseConfigText(next, path);
  } catch (err) {
    if (!isConfigError(err)) throw err;
    io.stderr(`${err.lines().join('\n')}\n`);
    io.stderr(`provider "${block.name}" was not written: with it the config would not load (see above); the config was not changed\n`);
    return EXIT.config;
  }
  await writeConfigText(path, next, { warn: (m) => io.stderr(`${m}\n`) });
  io.stderr(`provider "${block.name}" (${block.model} at ${block.baseUrl}) written; it is now global.llm.use_provider\n`);
  return EXIT.ok;
}
