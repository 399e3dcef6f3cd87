// Issue 10 observation 2 (environment): run_bash's child env is built, not inherited. Every variable named by a
// provider's api_key_env and every secret-looking name is dropped unless `[security] shell_env_keep` keeps it;
// PATH, HOME, LANG, TERM, LC_* stay. Real `bash -c env` through the adapter.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callTool } from '../../src/actors/tools/adapter.js';
import { buildShellEnv } from '../../src/actors/tools/shell-env.js';
import { call, makeDeps, tempDir } from './helpers.js';

const KEY = 'sk-provider-key-0123456789abcdef';
const VARS: Record<string, string> = {
  LLM_ACCESS: KEY, // not secret-looking by name: only api_key_env names it
  OPENAI_API_KEY: 'sk-openai-0123456789abcdef',
  GITHUB_TOKEN: 'ghp_0123456789abcdef0123',
  DB_PASSWORD: 'hunter2-hunter2-hunter2',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-0123456789',
  MY_CREDENTIALS: 'cred-0123456789abcdef',
  KEEP_ME_TOKEN: 'kept-token-0123456789',
  LC_ALL: 'C.UTF-8',
  LANG: 'C.UTF-8',
  TERM: 'xterm-256color',
  PLAIN_SETTING: 'visible-value',
};

let ws: ReturnType<typeof tempDir>;
const saved: Record<string, string | undefined> = {};
beforeEach(() => {
  ws = tempDir();
  for (const [k, v] of Object.entries(VARS)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
});
afterEach(() => {
  for (const k of Object.keys(VARS)) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  ws.cleanup();
});

async function shellEnv(shellEnvOf: NodeJS.ProcessEnv): Promise<string> {
  const deps = makeDeps(ws.path, { env: { shellEnv: shellEnvOf } });
  const r = await callTool(call('run_bash', { command: 'env', is_dangerous: false }), deps, new AbortController().signal);
  expect(r.status).toBe('ok');
  return r.content;
}

describe('run_bash environment policy', () => {
  it('`env` in run_bash prints no configured key and no secret-looking variable', async () => {
    const out = await shellEnv(buildShellEnv(process.env, { secretNames: ['LLM_ACCESS'] }));
    for (const k of ['LLM_ACCESS', 'OPENAI_API_KEY', 'GITHUB_TOKEN', 'DB_PASSWORD', 'AWS_SECRET_ACCESS_KEY', 'MY_CREDENTIALS', 'KEEP_ME_TOKEN']) {
      expect(out).not.toContain(VARS[k]);
      expect(out).not.toMatch(new RegExp(`^${k}=`, 'm'));
    }
    for (const k of ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TERM', 'PLAIN_SETTING']) expect(out).toMatch(new RegExp(`^${k}=`, 'm'));
  });

  it('shell_env_keep keeps a named variable, and only that one', async () => {
    const out = await shellEnv(buildShellEnv(process.env, { secretNames: ['LLM_ACCESS'], keep: ['KEEP_ME_TOKEN'] }));
    expect(out).toContain(`KEEP_ME_TOKEN=${VARS.KEEP_ME_TOKEN}`);
    expect(out).not.toContain(KEY);
    expect(out).not.toContain(VARS.GITHUB_TOKEN);
  });

  it('without a built env (a tool env that forgot it) run_bash still drops secret-looking names', async () => {
    const deps = makeDeps(ws.path);
    const r = await callTool(call('run_bash', { command: 'env', is_dangerous: false }), deps, new AbortController().signal);
    expect(r.content).not.toContain(VARS.GITHUB_TOKEN);
    expect(r.content).toMatch(/^PATH=/m);
  });
});
