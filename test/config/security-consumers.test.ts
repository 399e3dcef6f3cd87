// [security] keys → the real consumer (buildAgentEnv → tool port → guard / run_bash), each value changed and
// the agent's tool results watched. Only the model is scripted; files, bash and the store are real.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAgent } from '../../src/actors/agents/run-agent.js';
import { harnessConfig, makeHarness, ScriptedModel, toolMessages, THOUGHT } from '../agents/harness.js';
import { probeSandbox } from '../../src/actors/tools/sandbox-probe.js';

const bwrapWorks = (await probeSandbox(process.env)).ok;

const KEY = 'sk-configured-provider-key-0123';
const SSH = 'ssh-private-key-material-0123';
const saved = { HOME: process.env.HOME, LLM_ACCESS: process.env.LLM_ACCESS, DEPLOY_TOKEN: process.env.DEPLOY_TOKEN };
let home: string;
beforeEach(() => {
  home = join(mkdtempSync(join(tmpdir(), 'yagent-security-')), 'fake-home');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_test'), SSH);
  process.env.HOME = home;
  process.env.LLM_ACCESS = KEY; // named only by api_key_env: nothing secret-looking about the name
  process.env.DEPLOY_TOKEN = 'deploy-token-0123456789';
});
afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(join(home, '..'), { recursive: true, force: true });
});

/** One coding run (-y) whose model calls `tool(args)` once; returns that tool's result text. */
async function toolResult(security: string, tool: string, args: Record<string, unknown>): Promise<string> {
  const config = harnessConfig(`[global.llm.providers.keyed]\nmodel = "m"\napi_base_url = "http://127.0.0.1:1/v1"\napi_key_env = "LLM_ACCESS"\n${security}`, { LLM_ACCESS: KEY });
  const h = makeHarness({ yolo: true }, { config });
  const model = new ScriptedModel({ coding: [{ text: THOUGHT, calls: [{ name: tool, args }] }, { calls: [{ name: 'agent_exit', args: { conclusion: 'done', status: 'ok', facts: [], artifacts: [] } }] }] });
  await runAgent(h.env(model), { agent: 'coding', role: 'coding', brief: 'go', settings: h.settings, delegationId: null, parentSessionId: null });
  const second = model.byAgent('coding')[1];
  expect(second).toBeDefined();
  return second ? toolMessages(second).join('\n') : '';
}

describe('[security] keys reach the tools', () => {
  it('allow_read opens a denied zone to the read tools (absent: denied even with -y)', async () => {
    const path = join(home, '.ssh', 'id_test');
    const denied = await toolResult('', 'read_file', { path });
    expect(denied).toContain('access_denied');
    expect(denied).not.toContain(SSH);
    const allowed = await toolResult(`[security]\nallow_read = ["~/.ssh"]\n`, 'read_file', { path });
    expect(allowed).toContain(SSH);
  });

  it('shell_env_keep and api_key_env decide what run_bash sees', async () => {
    const plain = await toolResult('', 'run_bash', { command: 'env', is_dangerous: false });
    expect(plain).toMatch(/exit code 0/);
    expect(plain).not.toContain(KEY);
    expect(plain).not.toContain('DEPLOY_TOKEN=');
    const kept = await toolResult(`[security]\nshell_env_keep = ["DEPLOY_TOKEN", "LLM_ACCESS"]\n`, 'run_bash', { command: 'env', is_dangerous: false });
    expect(kept).toContain('DEPLOY_TOKEN=deploy-token-0123456789');
    expect(kept).toContain(`LLM_ACCESS=${KEY}`);
  });

  it.skipIf(!bwrapWorks)('sandbox decides whether run_bash runs under bubblewrap', async () => {
    // the sandbox's shell is pid 2 of its own PID namespace (bwrap is pid 1); a bare one is a host pid
    expect(await toolResult('', 'run_bash', { command: 'echo "pid=$$"', is_dangerous: false })).toContain('pid=2\n');
    expect(await toolResult(`[security]\nsandbox = "off"\n`, 'run_bash', { command: 'echo "pid=$$"', is_dangerous: false })).not.toContain('pid=2\n');
  });

  it.skipIf(!bwrapWorks)('sandbox_writable lets run_bash write there in the sandbox', async () => {
    const out = join(home, 'out');
    mkdirSync(out);
    const command = `echo x > ${join(out, 'a.txt')}`;
    // -y approves the re-run a refused write offers; listed, the first run writes
    expect(await toolResult('', 'run_bash', { command, is_dangerous: false })).toContain('the sandbox refused a write');
    expect(await toolResult(`[security]\nsandbox_writable = ["~/out"]\n`, 'run_bash', { command, is_dangerous: false })).not.toContain('the sandbox refused');
  });
});
