// What each real server answers where a client asks for its context window (../window/server-window.ts reads these):
// the shapes are the servers' own, with where they are documented. `window` undefined = the server does not say.
import type { ServerFlavour } from './flavours.js';

export interface WindowSetup {
  /** The server's window: llama.cpp -c (one slot), vLLM --max-model-len, Ollama's loaded runner, LM Studio's load. */
  window?: number | undefined;
  /** Ollama: num_ctx in the model's Modelfile parameters (`/api/show`). */
  ollamaNumCtx?: number | undefined;
}

const CREATED = 1_700_000_000;

/** The answer to a GET (or Ollama's POST /api/show) on a path other than the chat endpoints; null = 404. */
export function infoAnswer(f: ServerFlavour, method: string, path: string, model: string, s: WindowSetup): unknown {
  const root = path.replace(/^\/v1(?=\/)/, '');
  if (method === 'GET' && path === '/v1/models') {
    // seen from llama-server b11669: an Ollama-style `models` list beside OpenAI's `data`
    const ollamaStyle = f === 'llama.cpp' ? { models: [{ name: model, model, modified_at: '', size: '', digest: '', type: 'model', description: '', tags: [''], capabilities: ['completion'], parameters: '', details: { parent_model: '', format: 'gguf', family: '', families: [''], parameter_size: '', quantization_level: '' } }] } : {};
    return { ...ollamaStyle, object: 'list', data: [modelEntry(f, model, s)] };
  }
  switch (f) {
    case 'llama.cpp':
      // tools/server README: GET /props, default_generation_settings.n_ctx is a slot's context (-c / -np)
      return method === 'GET' && root === '/props' && s.window !== undefined
        ? // seen from llama-server b11669: 4 slots by default (-np auto), sharing one unified KV cache: each slot's n_ctx is -c
          { default_generation_settings: { n_ctx: s.window, params: { temperature: 0.8 } }, total_slots: 4, model_path: `/models/${model}.gguf`, build_info: 'b11669-Debian' }
        : null;
    case 'ollama':
      // docs/api.md: GET /api/ps lists loaded models (context_length: the runner's window); POST /api/show gives the Modelfile's parameters
      if (method === 'GET' && path === '/api/ps') return { models: s.window !== undefined ? [{ name: `${model}:latest`, model: `${model}:latest`, size: 1, digest: 'd', expires_at: '2026-01-01T00:00:00Z', size_vram: 1, context_length: s.window }] : [] };
      if (method === 'POST' && path === '/api/show') {
        const parameters = ['stop "<|im_end|>"', ...(s.ollamaNumCtx !== undefined ? [`num_ctx ${s.ollamaNumCtx}`] : [])].join('\n');
        return { modelfile: '# Modelfile', parameters, template: '{{ .Prompt }}', details: { format: 'gguf', family: 'qwen2' }, model_info: { 'general.architecture': 'qwen2', 'qwen2.context_length': 32768 } };
      }
      return null;
    case 'lmstudio':
      // REST API v0: GET /api/v0/models/{model}: max_context_length (the model's), loaded_context_length (the load's)
      return method === 'GET' && path === `/api/v0/models/${encodeURIComponent(model)}`
        ? { id: model, object: 'model', type: 'llm', publisher: 'lmstudio-community', arch: 'qwen2', compatibility_type: 'gguf', quantization: 'Q4_K_M', state: s.window !== undefined ? 'loaded' : 'not-loaded', max_context_length: 131072, ...(s.window !== undefined ? { loaded_context_length: s.window } : {}) }
        : null;
    default:
      return null;
  }
}

function modelEntry(f: ServerFlavour, id: string, s: WindowSetup): Record<string, unknown> {
  switch (f) {
    case 'llama.cpp':
      // newer builds add meta.n_ctx beside the model's training size n_ctx_train
      return {
        id,
        aliases: [id],
        tags: [],
        object: 'model',
        architecture: { input_modalities: ['text'], output_modalities: ['text'] },
        created: CREATED,
        owned_by: 'llamacpp',
        meta: { vocab_type: 2, n_vocab: 151936, ...(s.window !== undefined ? { n_ctx: s.window } : {}), n_ctx_train: 262144, n_embd: 2048, n_params: 1_000_000, size: 4_000_000, ftype: 'all F32' },
      };
    case 'vllm':
    case 'vllm-legacy':
      // vllm/entrypoints/openai/protocol.py ModelCard.max_model_len
      return { id, object: 'model', created: CREATED, owned_by: 'vllm', root: id, parent: null, ...(s.window !== undefined ? { max_model_len: s.window } : {}), permission: [] };
    case 'ollama':
      return { id: `${id}:latest`, object: 'model', created: CREATED, owned_by: 'library' };
    case 'lmstudio':
      return { id, object: 'model', owned_by: 'organization_owner' };
    case 'openai':
      return { id, object: 'model', created: CREATED, owned_by: 'system' };
  }
}
