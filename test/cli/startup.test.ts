// Start-up plan of the CLI: the spare it boots first preloads exactly the module the Director runs in.
import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { STORE_MODULE } from '../../src/store/client.js';
import { AGENT_MODULE } from '../../src/actors/agents/agent-module.js';
import { distRoot } from '../../src/runtime/paths.js';
import { AGENT_ACTOR_MODULE, SPARE_PLAN, STORE_PRELOAD, canDelegate, delegationPreload } from '../../bin/host/boot-plan.js';
import { GOOD_CONFIG, runCli, sandbox, withScript, type Sandbox } from './helpers.js';
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

describe('start-up plan', () => {
  it('the prestarted spare preloads the module runTask spawns the Director from', () => {
    expect(AGENT_ACTOR_MODULE).toBe(AGENT_MODULE);
    expect(SPARE_PLAN.preload).toEqual([AGENT_MODULE]);
    expect(existsSync(join(distRoot(), AGENT_MODULE))).toBe(true);
    // the store's worker is prestarted too, with the preload the runtime port starts the store with (so it is adopted)
    expect(STORE_PRELOAD).toEqual([STORE_MODULE]);
    expect(readFileSync(resolve('bin/host/runtime-port.ts'), 'utf8')).toMatch(/module: STORE_MODULE,.*preload: STORE_PRELOAD/);
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
  });

  it('the actor workers and the CLI start from bundles (scripts/bundle-entries.mjs) whose only relative imports are src/runtime files', () => {
    expect(AGENT_MODULE).toBe('src/actors/agents/agent-actor.bundle.js');
    expect(STORE_MODULE).toBe('src/store/store-actor.bundle.js');
    for (const mod of [AGENT_MODULE, STORE_MODULE]) {
      const file = join(distRoot(), mod);
      const relative = [...readFileSync(file, 'utf8').matchAll(/^import\s[^;]*?['"](\.[^'"]+)['"]/gm)].map((m) => resolve(dirname(file), m[1] ?? ''));
      expect(relative.length).toBeGreaterThan(0);
      // one copy of the runtime per thread: the worker bootstrap loaded these same files already
      for (const f of relative) {
        expect(f.startsWith(join(distRoot(), 'src', 'runtime') + sep), f).toBe(true);
        expect(f.startsWith(join(distRoot(), 'src', 'runtime', 'config') + sep), `${f}: config/ is inlined`).toBe(false);
        expect(existsSync(f), f).toBe(true);
      }
    }
    expect(readFileSync(resolve('bin/yagent.js'), 'utf8')).toContain("'../dist/bin/main.bundle.js'");
    expect(existsSync(join(distRoot(), 'bin', 'main.bundle.js'))).toBe(true);
  });
});
