// Issue 23 item 4 through the real CLI: the run learns its context window from the server (each local server's own
// endpoint, the fake speaking its shape), the config's context_window beats it, an overflow answer's n_ctx replaces
// it, the compression threshold follows, and one line (-v) and model_info say which window and threshold a run uses.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StreamLineSchema } from '../../bin/cli/stream-json.js';
import { GOOD_CONFIG, project, runCli, sandbox, withScript, type Sandbox } from './helpers.js';
import { PRELUDE } from './scripts.js';

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());

const lines = (stdout: string) => stdout.trim().split('\n').map((l) => StreamLineSchema.parse(JSON.parse(l)));
const modelInfos = (stdout: string) => lines(stdout).filter((l) => l.type === 'model_info').map((l) => l.data);
/** A script module that sets the fake's flavour and window, then scripts it. */
const flavoured = (flavour: string, setup: string, body: string): string => `${PRELUDE}
export default (fake) => {
  fake.flavour = ${JSON.stringify(flavour)};
  ${setup}
${body}
};
`;
const SAY = `fake.script('director', say('done'));`;
const FILES: Record<string, string> = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`f${i}.txt`, `file ${i}\n${'lorem ipsum dolor sit amet '.repeat(220)}\n`]));
const read = (i: number): string => `call('read_file', { path: 'f${i}.txt' }, '<thought>\\ngoal: read\\nstep: read ${i}\\nreason: test\\n</thought>')`;

describe('the window and threshold a run uses', () => {
  it('llama.cpp: learned from /props; -v says it in one line; model_info carries window, source and threshold', async () => {
    sb = sandbox(GOOD_CONFIG);
    const r = await runCli(['-v', '-d', 'all', '-p', 'hi', '--output-format', 'stream-json'], withScript(sb, flavoured('llama.cpp', 'fake.window = 8192;', SAY)), { cwd: project(sb) });
    expect(r.code).toBe(0);
    expect(modelInfos(r.stdout)[0]).toMatchObject({ agent: 'director', contextWindow: 8192, windowSource: 'llama.cpp /props n_ctx', compressionThreshold: 6144 });
    expect(r.stderr.match(/^yagent: director: scripted-model at scripted: context window 8192 \(llama\.cpp \/props n_ctx\), compression threshold 6144$/gm)).toHaveLength(1);
  });

  it.each([
    ['vllm', 'fake.window = 16384;', 16384, 'vLLM /v1/models max_model_len'],
    ['ollama', 'fake.window = 4096;', 4096, 'Ollama /api/ps context_length'],
    ['ollama', 'fake.ollamaNumCtx = 8192;', 8192, 'Ollama /api/show num_ctx'],
    ['lmstudio', 'fake.window = 32768;', 32768, 'LM Studio /api/v0 loaded_context_length'],
  ])('%s (%s): window %i from %s', async (flavour, setup, window, source) => {
    sb = sandbox(GOOD_CONFIG);
    const r = await runCli(['-d', 'all', '-p', 'hi', '--output-format', 'stream-json'], withScript(sb, flavoured(flavour, setup, SAY)), { cwd: project(sb) });
    expect(r.code).toBe(0);
    expect(modelInfos(r.stdout)[0]).toMatchObject({ contextWindow: window, windowSource: source, compressionThreshold: Math.floor(window * 0.75) });
  });

  it('Ollama that says nothing: a warning line names OLLAMA_CONTEXT_LENGTH and context_window (no -v needed)', async () => {
    sb = sandbox(GOOD_CONFIG);
    const r = await runCli(['-d', 'all', '-p', 'hi'], withScript(sb, flavoured('ollama', '', SAY)), { cwd: project(sb) });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/context window unknown: Ollama's default .* cuts longer prompts silently: start it with OLLAMA_CONTEXT_LENGTH=32768, or set context_window/);
  });

  it('Ollama sizing the window when it loads the model: asked again after the first answer, model_info then says it', async () => {
    sb = sandbox(GOOD_CONFIG);
    // the first chat request loads the model with Ollama's default context: /api/ps reports it from then on. The probe
    // runs once that answer is on the wire (issue 29); this server is still loading then: it sizes the window only
    // after the probe's two questions were answered
    const r = await runCli(['-d', 'all', '-p', 'hi', '--output-format', 'stream-json'], withScript(sb, flavoured('ollama', '', `
  const probed = () => ['/api/ps', '/api/show'].every((p) => fake.infoRequests.some((q) => q.endsWith(p)));
  const loadLater = async () => { while (!probed()) await new Promise((r) => setImmediate(r)); await new Promise((r) => setImmediate(r)); fake.window = 4096; };
  fake.script('director', () => { void loadLater(); return ${read(0)}; }, say('done'));`)), { cwd: project(sb, FILES) });
    expect(r.code).toBe(0);
    const infos = modelInfos(r.stdout);
    expect(infos[0]).toMatchObject({ windowSource: 'Ollama (default context)' });
    expect(infos[0]).not.toHaveProperty('contextWindow');
    expect(infos[1]).toMatchObject({ contextWindow: 4096, windowSource: 'Ollama /api/ps context_length', compressionThreshold: 3072 });
  });

  it("the config's context_window beats the server, and sets the threshold", async () => {
    sb = sandbox(`${GOOD_CONFIG}\n[global.llm.providers.scripted]\ncontext_window = 20000\n`);
    const r = await runCli(['-d', 'all', '-p', 'hi', '--output-format', 'stream-json'], withScript(sb, flavoured('llama.cpp', 'fake.window = 8192;', SAY)), { cwd: project(sb) });
    expect(r.code).toBe(0);
    expect(modelInfos(r.stdout)[0]).toMatchObject({ contextWindow: 20000, windowSource: 'context_window in the config', compressionThreshold: 15000 });
  });

  it('the learned window drives compression: the same reads compress at an 8k server and not against one that says nothing', async () => {
    const script = (setup: string): string => flavoured('llama.cpp', setup, `
  fake.script('director', ${[0, 1, 2, 3, 4, 5].map(read).join(', ')}, say('six read'));
  fake.script('compression', ...times(6, say('summary: files read')));`);
    const compressed = async (setup: string): Promise<number> => {
      sb = sandbox(GOOD_CONFIG);
      const r = await runCli(['-d', 'all', '-p', 'read six', '--output-format', 'stream-json'], withScript(sb, script(setup)), { cwd: project(sb, FILES) });
      expect(r.code).toBe(0);
      sb.cleanup();
      return lines(r.stdout).filter((l) => l.type.startsWith('context_') && l.type.endsWith('compressed')).length;
    };
    expect(await compressed('fake.window = 8192;')).toBeGreaterThan(0);
    expect(await compressed('')).toBe(0);
  });

  it("an overflow answer's n_ctx becomes the window: model_info says it again with the lower threshold", async () => {
    sb = sandbox(GOOD_CONFIG);
    const r = await runCli(['-d', 'all', '-p', 'read', '--output-format', 'stream-json'], withScript(sb, flavoured('llama.cpp', '', `
  fake.script('director', ${[0, 1].map(read).join(', ')}, { fault: { kind: 'overflow', promptTokens: 6248, window: 6000 } }, say('read'));
  fake.script('compression', ...times(4, say('summary: files read')));`)), { cwd: project(sb, FILES) });
    expect(r.code).toBe(0);
    const infos = modelInfos(r.stdout);
    expect(infos.at(-1)).toMatchObject({ contextWindow: 6000, windowSource: "the server's overflow answer", compressionThreshold: 4500 });
    expect(infos.length).toBe(2);
  });
});

describe('a small window compresses rarely (item 9)', () => {
  it('a 60-step run against an 8k llama-server makes at most 4 summary calls, each later one incremental', async () => {
    sb = sandbox(GOOD_CONFIG);
    const out = join(sb.dir, 'summaries.json');
    const MODULES = Object.fromEntries(Array.from({ length: 10 }, (_, f) => [`m${f}.ts`, Array.from({ length: 40 }, (_, l) => `export const v${f}_${l} = compute(${f}, ${l}); // line ${l}`).join('\n')]));
    const readModule = (i: number): string => `call('read_file', { path: 'm${i % 10}.ts' }, '<thought>\\ngoal: read\\nstep: read m${i % 10}\\nreason: test\\n</thought>')`;
    const script = `${PRELUDE}
import { writeFileSync } from 'node:fs';
const seen = [];
export default (fake) => {
  fake.flavour = 'llama.cpp';
  fake.window = 8192;
  fake.script('director', ${Array.from({ length: 60 }, (_, i) => readModule(i)).join(', ')}, say('all read'));
  fake.script('compression', ...times(60, (req) => { seen.push(req.body.messages[1].content.slice(0, 40)); writeFileSync(${JSON.stringify(out)}, JSON.stringify(seen)); return say('summary: the modules export values computed from their index'); }));
};
`;
    const r = await runCli(['-d', 'all', '-p', 'read every module', '-y'], withScript(sb, script), { cwd: project(sb, MODULES) });
    expect(r.stdout.trim()).toBe('all read');
    expect(r.code).toBe(0);
    const summaries = JSON.parse(readFileSync(out, 'utf8')) as string[];
    expect(summaries.length).toBeGreaterThan(0);
    expect(summaries.length).toBeLessThanOrEqual(4);
    for (const head of summaries.slice(1)) expect(head).toMatch(/^Previous summary:/);
  }, 120_000);
});
