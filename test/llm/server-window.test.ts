// Issue 23 item 4: the context window is learned from where each local server tells it (the fake speaks each
// server's shape: src/actors/llm/fake/window-answers.ts); the config's context_window beats the server.
import { afterEach, describe, expect, it } from 'vitest';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import type { ServerFlavour } from '../../src/actors/llm/fake/flavours.js';
import { httpFetch } from '../../src/actors/llm/transport/http-fetch.js';
import { isLocalServer, resolveWindow } from '../../src/actors/llm/window/context-window.js';
import { OLLAMA_NOTE } from '../../src/actors/llm/window/server-window.js';
import { providerFor } from './helpers.js';

const fakes: FakeProvider[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.close()));
});

async function serve(flavour: ServerFlavour, window?: number): Promise<FakeProvider> {
  const f = await FakeProvider.start({ flavour, model: 'qwen-local', ...(window !== undefined ? { window } : {}) });
  fakes.push(f);
  return f;
}

describe('the window a local server says it has', () => {
  const cases: [ServerFlavour, string][] = [
    ['llama.cpp', 'llama.cpp /props n_ctx'],
    ['vllm', 'vLLM /v1/models max_model_len'],
    ['ollama', 'Ollama /api/ps context_length'],
    ['lmstudio', 'LM Studio /api/v0 loaded_context_length'],
  ];
  for (const [flavour, source] of cases) {
    it(`${flavour}: ${source}`, async () => {
      const f = await serve(flavour, 6144);
      expect(await resolveWindow(providerFor(f, 'openai', { model: 'qwen-local' }), httpFetch)).toEqual({ tokens: 6144, source });
    });
  }

  it('llama.cpp without /props (a proxy in front): meta.n_ctx of /v1/models, never n_ctx_train', async () => {
    const f = await serve('llama.cpp', 8192);
    // the same body minus /props: ask the model list only through a fetch that refuses /props
    const noProps: typeof fetch = (url, init) => (String(url).endsWith('/props') ? Promise.resolve(new Response('', { status: 404 })) : httpFetch(url, init));
    expect(await resolveWindow(providerFor(f, 'openai', { model: 'qwen-local' }), noProps)).toEqual({ tokens: 8192, source: 'llama.cpp /v1/models meta.n_ctx' });
  });

  it('Ollama: num_ctx from the Modelfile when the model is not loaded; neither → no window and the line that says what to set', async () => {
    const f = await serve('ollama');
    f.ollamaNumCtx = 16384;
    expect(await resolveWindow(providerFor(f, 'openai', { model: 'qwen-local' }), httpFetch)).toEqual({ tokens: 16384, source: 'Ollama /api/show num_ctx' });
    f.ollamaNumCtx = undefined;
    const none = await resolveWindow(providerFor(f, 'openai', { model: 'qwen-local' }), httpFetch);
    expect(none).toEqual({ source: 'Ollama (default context)', note: OLLAMA_NOTE, recheck: true });
    expect(none.note).toMatch(/OLLAMA_CONTEXT_LENGTH/);
  });

  it("the config's context_window beats the server; a server that says nothing leaves the catalogue or nothing", async () => {
    const f = await serve('llama.cpp', 6144);
    expect(await resolveWindow(providerFor(f, 'openai', { model: 'qwen-local', contextWindow: 32000 }), httpFetch)).toEqual({ tokens: 32000, source: 'context_window in the config' });
    expect(f.infoRequests).toEqual([]);
    const plain = await serve('openai');
    expect(await resolveWindow(providerFor(plain, 'openai', { model: 'qwen-local' }), httpFetch)).toEqual({ source: 'unknown (set context_window)' });
    expect(await resolveWindow(providerFor(plain, 'openai', { model: 'gpt-4o' }), httpFetch)).toEqual({ tokens: 128000, source: 'model catalogue' });
  });

  it('only servers on this machine or the local network are asked', () => {
    expect(['http://127.0.0.1:8080/v1', 'http://localhost:11434/v1', 'http://192.168.1.20:8000/v1', 'http://gpu-box:8080/v1', 'http://llm.local:1234/v1'].every(isLocalServer)).toBe(true);
    expect(['https://api.openai.com/v1', 'https://openrouter.ai/api/v1'].some(isLocalServer)).toBe(false);
  });
});
