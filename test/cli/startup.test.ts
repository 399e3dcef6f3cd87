// Start-up plan of the CLI: the spare it boots first preloads exactly the module the Director runs in.
import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { STORE_MODULE, STORE_THREAD } from '../../src/store/store-module.js';
import { AGENT_MODULE, AGENT_THREAD } from '../../src/actors/agents/agent-module.js';
import { BUILD_LINE, cacheFileFor } from '../../src/runtime/code-cache.js';
import { distRoot } from '../../src/runtime/dist-paths.js';
import { AGENT_ACTOR_MODULE, SPARE_PLAN, STORE_PRELOAD, THREADS, canDelegate, delegationPreload, readsStoreFirst } from '../../bin/host/boot-plan.js';
import { GOOD_CONFIG, runCli, sandbox, withScript, type CliResult, type Sandbox } from './helpers.js';
import { parseCommand, runsLocalTasks } from '../../bin/cli/args.js';
import { DELEGATING } from './scripts.js';

let sb: Sandbox | undefined;
afterEach(() => sb?.cleanup());
import type { ProviderConfig } from '../../src/runtime/config/types.js';

const provider = (apiFormat: ProviderConfig['apiFormat']): ProviderConfig => ({
  name: apiFormat,
  model: 'm',
  apiBaseUrl: 'http://127.0.0.1:1',
  apiKey: 'k',
  apiFormat,
  contextWindow: undefined,
  temperature: undefined,
  maxTokens: undefined,
  reasoningEffort: undefined,
  fallbackProviders: [],
});

/** A traced single-agent run (-d all) whose model answers "hello", in a fresh sandbox's workspace. */
async function tracedHello(): Promise<CliResult> {
  sb = sandbox(GOOD_CONFIG);
  const ws = join(sb.dir, 'ws');
  mkdirSync(ws);
  return runCli(['-d', 'all', '-p', 'hi?'], { ...withScript(sb, 'export default { director: [{ text: "hello", finishReason: "stop" }] };\n'), YAGENT_TRACE: '1' }, { cwd: ws });
}

describe('start-up plan', () => {
  it('the prestarted spare preloads the module runTask spawns the Director from', () => {
    expect(AGENT_ACTOR_MODULE).toBe(AGENT_MODULE);
    expect(SPARE_PLAN.preload).toEqual([AGENT_MODULE]);
    expect(existsSync(join(distRoot(), AGENT_MODULE))).toBe(true);
    // the store's worker boots with the runtime (not prestarted: the Director's first request waits for no store)
    expect(STORE_PRELOAD).toEqual([STORE_MODULE]);
    expect(readFileSync(resolve('bin/host/runtime-adapter.ts'), 'utf8')).toMatch(/module: STORE_MODULE,.*preload: STORE_PRELOAD/);
  });

  it('delegation spares preload only the SDKs the configured providers speak', () => {
    expect(delegationPreload({ providers: { a: provider('openai'), b: provider('openai') } })).toEqual([AGENT_MODULE, 'openai']);
    expect(delegationPreload({ providers: { a: provider('anthropic') } })).toEqual([AGENT_MODULE, '@anthropic-ai/sdk']);
    expect(delegationPreload({ providers: { a: provider('openai'), b: provider('anthropic') } })).toEqual([AGENT_MODULE, '@anthropic-ai/sdk', 'openai']);
  });

  it('a run that can delegate boots the delegation spare; a single-agent run (-d all) does not', async () => {
    expect(canDelegate([])).toBe(true);
    expect(canDelegate(['repo,coding,devops'])).toBe(true);
    expect(canDelegate(['all'])).toBe(false);
    expect(canDelegate(['repo,coding,chat,devops,meta'])).toBe(true); // the Browser agent is still there
    expect(canDelegate(['repo,coding,chat,devops,browser,meta'])).toBe(false);
    sb = sandbox(GOOD_CONFIG);
    const ws = join(sb.dir, 'ws');
    mkdirSync(ws);
    const env = { ...withScript(sb, DELEGATING), YAGENT_TRACE: '1' };
    const multi = await runCli(['-p', 'name?'], env, { cwd: ws });
    expect(multi.code).toBe(0);
    expect(multi.stderr).toContain('booting the delegation spare');
    const traced = await runCli(['-d', 'all', '-p', 'name?'], { ...withScript(sb, 'export default { director: [{ text: "hi", finishReason: "stop" }] };\n'), YAGENT_TRACE: '1' }, { cwd: ws });
    expect(traced.code).toBe(0);
    expect(traced.stdout.trim()).toBe('hi');
    expect(traced.stderr).not.toContain('booting the delegation spare');
  });

  it('compiled code loads zod, the provider SDKs and the small packages every worker needs as one bundled file each (dist/node_modules, scripts/vendor-packages.mjs)', () => {
    execFileSync(process.execPath, [resolve('scripts/vendor-packages.mjs')]);
    const version = (dir: string): unknown => (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: unknown }).version;
    for (const name of ['zod', 'openai', '@anthropic-ai/sdk', 'smol-toml', 'tinyglobby', 'diff']) {
      const resolved = execFileSync(process.execPath, ['--input-type=module', '-e', `process.stdout.write(import.meta.resolve('${name}'))`], { cwd: join(distRoot(), 'src', 'runtime') }).toString();
      expect(resolved).toBe(pathToFileURL(join(distRoot(), 'node_modules', name, 'index.js')).href);
      expect(version(join(distRoot(), 'node_modules', name))).toBe(version(resolve('node_modules', name)));
    }
    // zod without its locales namespace (every thread parsed 240 KB of other languages' messages; English stays),
    // and jitless from its first line: a schema built before any z.config() call compiles no fast path either
    const probe = `const { z } = await import('zod'); const r = z.string().safeParse(1);
      let compiled = 0; const F = globalThis.Function; globalThis.Function = function (...a) { compiled++; return F(...a); };
      z.object({ a: z.string(), b: z.number() }).parse({ a: 'x', b: 1 });
      globalThis.Function = F;
      process.stdout.write(JSON.stringify([Object.keys(z.locales).length, r.error.issues[0].message, z.config().jitless, compiled]))`;
    const [locales, message, jitless, compiled] = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: join(distRoot(), 'src', 'runtime') }).toString()) as [number, string, boolean, number];
    expect(locales).toBe(0);
    expect(message).toBe('Invalid input: expected string, received number');
    expect(jitless).toBe(true);
    expect(compiled).toBe(0);
    // tinyglobby's fdir loads no picomatch of its own at start (tinyglobby matches with its inlined copy)
    expect(readFileSync(join(distRoot(), 'node_modules', 'tinyglobby', 'index.js'), 'utf8')).not.toMatch(/require\("picomatch"\)/);
  });

  it('the CLI, the agent and the store start from code-cached CommonJS bundles (scripts/bundle-entries.mjs, train-code-cache.mjs) that V8 accepts', async () => {
    expect(AGENT_MODULE).toBe('src/actors/agents/agent-actor.js');
    expect(STORE_MODULE).toBe('src/store/store-actor.js');
    expect(THREADS).toEqual([AGENT_THREAD, STORE_THREAD]);
    const bundles = [AGENT_THREAD.bundle, STORE_THREAD.bundle, 'bin/main.cjs', ...Object.values(AGENT_THREAD.requires ?? {})];
    for (const rel of bundles) {
      const file = join(distRoot(), rel);
      const build = BUILD_LINE.exec(readFileSync(file, 'utf8').slice(-64))?.[1];
      expect(build, `${rel} names its build`).toMatch(/^[0-9a-f]{16}$/);
      expect(existsSync(cacheFileFor(file, build ?? '')), `${rel} has a trained code cache`).toBe(true);
    }
    expect(readFileSync(resolve('bin/yagent.js'), 'utf8')).toContain("loadBundle(file('bin/main.cjs'), sdks)");
    // a real run: every thread compiled its bundle from the cache (no miss, no refusal)
    const run = await tracedHello();
    expect(run.code).toBe(0);
    const loads = [...run.stderr.matchAll(/code cache (\w+): (\S+)/g)].map((m) => [m[1], m[2]]);
    for (const name of ['main.cjs', 'agent-thread.cjs', 'store-thread.cjs']) expect(loads).toContainEqual(['hit', name]);
    expect(loads.filter(([how]) => how === 'rejected')).toEqual([]);
    // -p never loads a chunk of the TUI or the MCP client (they stay lazy)
    const chunks = readdirSync(join(distRoot(), 'bin', 'chunks'));
    const heavy = chunks.filter((c) => /require\("(blessed|@modelcontextprotocol\/sdk[^"]*)"\)/.test(readFileSync(join(distRoot(), 'bin', 'chunks', c), 'utf8')));
    expect(heavy.length).toBeGreaterThan(0);
    for (const c of heavy) expect(loads.map(([, f]) => f)).not.toContain(c);
  });

  it("a new task's Director sends its first request without waiting for the store: no note index asked, its SDK and transport loaded first", async () => {
    const run = await tracedHello();
    expect(run.code).toBe(0);
    const lines = run.stderr.split('\n');
    const director = /thread (\d+): start director/.exec(run.stderr)?.[1];
    expect(director).toBeDefined();
    const own = lines.filter((l) => l.includes(`thread ${director ?? ''}: `));
    const at = (re: RegExp): number => own.findIndex((l) => re.test(l));
    expect(at(/rpc store\.openRollout posted/)).toBeGreaterThan(at(/start director/));
    // the board of a task made for this run is empty: no index is asked before the first request (later steps ask)
    expect(at(/first model request sent/)).toBeGreaterThan(0);
    expect(own.slice(0, at(/first model request sent/)).filter((l) => /store\.buildIndex/.test(l))).toEqual([]);
    expect(at(/sdk prefetch: openai and the transport/)).toBeGreaterThan(at(/start director/));
    expect(at(/sdk prefetch done/)).toBeLessThan(at(/first model request sent/));
  });

  it("the store's worker starts booting once the prestarted Director's is ready: the two boots never share the cores the first request waits on", async () => {
    const { adoptPrestarted, startKey } = await import('../../src/runtime/spare-boot.js');
    const { prestartDirector, storeBootAfter, WORKER_LIMITS } = await import('../../bin/host/boot-plan.js');
    prestartDirector(false);
    const spare = adoptPrestarted(startKey(WORKER_LIMITS, SPARE_PLAN.preload));
    expect(spare).toBeDefined();
    let ready = false;
    void spare?.ready.then(() => (ready = true));
    let after = false;
    const gate = storeBootAfter().then(() => (after = true));
    await new Promise((r) => setImmediate(r));
    expect(after).toBe(false); // a worker cannot be ready one turn after it was created
    await gate;
    expect(ready).toBe(true);
    await spare?.worker.terminate();
    // the adapter starts the store behind that gate (the trace order below alone is a race a fast main thread can win)
    expect(readFileSync(resolve('bin/host/runtime-adapter.ts'), 'utf8')).toMatch(/const gate = afterCall \? storeBootAfter\(\)\.then\(.*\) : storeBootAfter\(\);/);
    // the real CLI: the main thread's "store: worker booting" comes after the Director's worker said ready
    const run = await tracedHello();
    expect(run.code).toBe(0);
    const lines = run.stderr.split('\n');
    const at = (re: RegExp): number => lines.findIndex((l) => re.test(l));
    expect(at(/\) store: worker booting$/)).toBeGreaterThan(at(/thread \d+: worker ready \(preload src\/actors\/agents\/agent-actor\.js/));
    expect(at(/thread \d+: worker ready \(preload src\/actors\/agents\/agent-actor\.js/)).toBeGreaterThan(0);
  });

  it("-p (a new task, a host that asks nobody): the store's worker boots once the Director's first model call is under way, out of its start → first request", async () => {
    const run = await tracedHello();
    expect(run.code).toBe(0);
    const lines = run.stderr.split('\n');
    const at = (re: RegExp): number => lines.findIndex((l) => re.test(l));
    // both lines are the main thread's: the store's boot follows the first call's event (a 1 s backstop aside)
    expect(at(/\) first model call under way$/)).toBeGreaterThan(0);
    expect(at(/\) store: worker booting$/)).toBeGreaterThan(at(/\) first model call under way$/));
    expect(run.stdout.trim()).toBe('hello'); // and the run still ends with its store flushed
  });

  it('-p: the sandbox probe and the orphan watchdog are spawned once the task has started, not on the main thread\'s path to the Director\'s start', async () => {
    const run = await tracedHello();
    expect(run.code).toBe(0);
    const lines = run.stderr.split('\n');
    const at = (re: RegExp): number => lines.findIndex((l) => re.test(l));
    expect(at(/\) runtime started/)).toBeGreaterThan(0);
    expect(at(/\) sandbox probe: started$/)).toBeGreaterThan(at(/\) runtime started/));
    // the orphan watchdog (a /bin/sh spawn) too: once the task started, before any model call could start a tool
    expect(at(/\) watchdog: started$/)).toBeGreaterThan(at(/\) runtime started/));
    expect(at(/\) watchdog: started$/)).toBeLessThan(at(/\) first model call under way$/));
  });

  it('-p: the first model request does not wait for the sandbox probe, and the probe\'s line still comes before any of the task\'s output', async () => {
    sb = sandbox(GOOD_CONFIG);
    const ws = join(sb.dir, 'ws');
    mkdirSync(ws);
    const asked = join(sb.dir, 'asked');
    const bin = join(sb.dir, 'slow-bin');
    mkdirSync(bin);
    // a bwrap that answers only once the model has been asked: a start that waited for it sat out the probe's 5 s kill
    writeFileSync(join(bin, 'bwrap'), `#!/bin/sh\nwhile [ ! -e '${asked}' ]; do sleep 0.01; done\necho 'bwrap: slow probe refused' >&2\nexit 1\n`, { mode: 0o755 });
    const script = `import { writeFileSync } from 'node:fs';\nexport default { director: [() => (writeFileSync(${JSON.stringify(asked)}, ''), { text: '<thought>\\ngoal: hi\\n</thought>hello', finishReason: 'stop' })] };\n`;
    const run = await runCli(['-d', 'all', '-p', 'hi?'], { ...withScript(sb, script), PATH: `${bin}:${process.env.PATH ?? ''}` }, { cwd: ws });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('hello');
    const lines = run.stderr.split('\n').filter((l) => l !== '');
    expect(lines[0]).toMatch(/^yagent: no OS sandbox for run_bash: bwrap cannot make its namespaces here \(bwrap: slow probe refused\)/);
    expect(lines.filter((l) => l.includes('no OS sandbox'))).toHaveLength(1);
    expect(lines.length).toBeGreaterThan(1); // the task's own lines came, after it
  });

  it("-p: the sweep of an earlier yagent's orphans (every process's environ read) waits until the Director's first model call is under way", async () => {
    const run = await tracedHello();
    expect(run.code).toBe(0);
    const lines = run.stderr.split('\n');
    const at = (re: RegExp): number => lines.findIndex((l) => re.test(l));
    expect(at(/orphan sweep: started/)).toBeGreaterThan(at(/thread \d+: start director/));
    expect(at(/thread \d+: start director/)).toBeGreaterThan(0);
  });

  it("the Director's first request leaves on node:http through the vendored SDK without loading undici (its ~85 ms of first-use CPU)", async () => {
    const run = await tracedHello();
    expect(run.code).toBe(0);
    const director = /thread (\d+): start director/.exec(run.stderr)?.[1];
    expect(director).toBeDefined();
    const own = run.stderr.split('\n').filter((l) => l.includes(`thread ${director ?? ''}: `));
    expect(own.filter((l) => l.includes('model transport: first request'))).toEqual([expect.stringContaining('(undici not loaded)')]);
  });

  it('the launcher boots the workers of a command that runs agents before the CLI bundle loads, once; other commands boot none', async () => {
    const tty = { stdin: false, stdout: false };
    const runs = (argv: string[], t = tty): boolean => runsLocalTasks(parseCommand(argv), t);
    expect(runs(['-p', 'x'])).toBe(true);
    expect(runs(['-p', 'x', '--attach'])).toBe(false);
    expect(runs([], { stdin: true, stdout: true })).toBe(true); // the TUI
    expect(runs([], { stdin: true, stdout: false })).toBe(false); // prints the usage
    expect(runs(['demo'])).toBe(true);
    expect(runs(['serve'])).toBe(true);
    expect(runs(['batch', 'f.jsonl'])).toBe(true);
    for (const argv of [['--version'], ['sessions'], ['mcp', 'list'], ['attach', 'ps'], ['setup']]) expect(runs(argv), argv.join(' ')).toBe(false);
    const run = await tracedHello();
    expect(run.code).toBe(0);
    const lines = run.stderr.split('\n');
    const at = (re: RegExp): number => lines.findIndex((l) => re.test(l));
    expect(lines.filter((l) => l.includes('workers prestarted'))).toEqual([expect.stringContaining('workers prestarted (Director)')]);
    expect(at(/workers prestarted/)).toBeGreaterThanOrEqual(0);
    expect(at(/workers prestarted/)).toBeLessThan(at(/code cache hit: main\.cjs/));
    // the store's worker boots early only for a turn that reads it before its Director starts (a continued session)
    expect(readsStoreFirst(parseCommand(['-p', 'x', '--continue']))).toBe(true);
    expect(readsStoreFirst(parseCommand(['-p', 'x', '--resume', 's1']))).toBe(true);
    for (const argv of [['-p', 'x'], ['demo'], ['serve']]) expect(readsStoreFirst(parseCommand(argv)), argv.join(' ')).toBe(false);
    const version = await runCli(['--version'], { ...(sb as Sandbox).env, YAGENT_TRACE: '1' });
    expect(version.stderr).not.toContain('workers prestarted');
  });
});

describe('task ids', () => {
  it('an id this process made is new exactly once (its first run gets a fresh board); any other id never', async () => {
    const { claimNewTaskId, newTaskId } = await import('../../bin/host/ids.js');
    const id = newTaskId();
    expect(claimNewTaskId(id)).toBe(true);
    expect(claimNewTaskId(id)).toBe(false);
    expect(claimNewTaskId('task-20260101000000-deadbeef')).toBe(false);
  });
});
