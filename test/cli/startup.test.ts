// Start-up plan of the CLI: the spare it boots first preloads exactly the module the Director runs in.
import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AGENT_MODULE } from '../../src/actors/agents/agent-module.js';
import { distRoot } from '../../src/runtime/paths.js';
import { AGENT_ACTOR_MODULE, SPARE_PLAN, canDelegate, delegationPreload } from '../../bin/host/boot-plan.js';
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
    expect(canDelegate(['repo,coding,chat,devops,meta'])).toBe(false);
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

  it('compiled code loads zod as one bundled file (dist/node_modules/zod, built by scripts/vendor-zod.mjs)', () => {
    execFileSync(process.execPath, [resolve('scripts/vendor-zod.mjs')]);
    const resolved = execFileSync(process.execPath, ['--input-type=module', '-e', "process.stdout.write(import.meta.resolve('zod'))"], { cwd: join(distRoot(), 'src', 'runtime') }).toString();
    expect(resolved).toMatch(/\/dist\/node_modules\/zod\/index\.js$/);
    const version = (dir: string): unknown => (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: unknown }).version;
    expect(version(join(distRoot(), 'node_modules', 'zod'))).toBe(version(resolve('node_modules', 'zod')));
  });
});
