// First start with no usable config, in a real terminal (tmux): a bare `yagent` opens the TUI in the setup dialog;
// filled in to point at the loopback fake provider, the next prompt is answered by it. Only the model is fake.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import { BIN, sandbox, type Sandbox } from '../cli/helpers.js';
import { hasTmux, TmuxPane } from './tmux.js';

let sb: Sandbox | undefined;
let pane: TmuxPane | undefined;
let fake: FakeProvider | undefined;
afterEach(async () => {
  try {
    await pane?.stop();
  } finally {
    sb?.cleanup();
    await fake?.close();
    pane = sb = fake = undefined;
  }
});

describe('TUI first start', () => {
  it.skipIf(!hasTmux)('no usable config: a bare `yagent` opens the setup dialog; once filled in, a prompt gets the configured model\'s answer', async () => {
    fake = await FakeProvider.start({ model: 'fake-model', fallback: { text: 'Configured answer.', finishReason: 'stop' } });
    sb = sandbox(); // a fresh HOME: no config file at all
    const ws = join(sb.dir, 'ws');
    mkdirSync(ws);
    // no local server is found (a port nothing listens on), so setup asks for an endpoint; the key comes from FAKE_KEY
    const env = { ...sb.env, YAGENT_SETUP_PROBE: 'none=9', FAKE_KEY: 'k', TERM: 'xterm-256color' };
    writeFileSync(join(sb.dir, 'run.sh'), `${Object.entries(env).map(([k, v]) => `export ${k}=${JSON.stringify(v ?? '')}`).join('\n')}\n${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)}\necho "EXITED $?"\nsleep 60\n`);
    pane = TmuxPane.start(join(sb.dir, 'tmux.sock'), 'tui', ws, `sh ${join(sb.dir, 'run.sh')}`, 100, 30);
    await pane.waitFor((s) => s.includes('─ setup ─') && s.includes('provider name'), 'the setup dialog');
    // the template the first load wrote is untouched: nothing is configured yet (not "a placeholder api key")
    expect(pane.capture()).toContain('no model provider is configured yet');
    expect(pane.capture()).not.toContain('placeholder');
    const answer = async (text: string, next: string): Promise<void> => {
      if (text) pane?.text(text);
      pane?.keys('Enter');
      await pane?.waitFor((s) => s.includes(next), `the question "${next}"`);
    };
    await answer('fake', 'api format');
    await answer('', 'api base url'); // the default: openai
    await answer(fake.openaiBaseUrl, 'model:');
    await answer('fake-model', 'environment variable');
    // a variable this terminal does not have is asked again (the config would not load), not written
    await answer('NOT_SET_KEY', 'NOT_SET_KEY is not set in this terminal');
    await answer('FAKE_KEY', 'provider "fake" (fake-model');
    const cfg = readFileSync(join(sb.home, 'config', 'config.toml'), 'utf8');
    expect(cfg).toMatch(/use_provider = "fake"/);
    expect(cfg).toMatch(/api_key_env = "FAKE_KEY"/);
    pane.text('hello');
    pane.keys('Enter');
    await pane.waitFor((s) => s.includes('Configured answer.') && s.includes(' ready │ '), 'the answer from the configured provider');
    expect(pane.capture()).toContain('fake/fake-model');
    pane.text('/quit');
    pane.keys('Enter');
    await pane.waitFor((s) => s.includes('EXITED 0'), 'the exit');
  }, 90_000);
});
