// A provider's context window: the config's context_window, else what a local server says, else the catalogue.
import type { ProviderConfig } from '../../../runtime/config/index.js';
import { isLoopbackUrl } from '../../../runtime/config/index.js';
import { modelLimits } from '../catalogue/catalogue.js';
import { probeServerWindow, type ServerWindow } from './server-window.js';

/** The window a run uses and where it came from (`model_info.windowSource`); `note` is a line the user should read. */
export type WindowInfo = ServerWindow;

const PRIVATE_HOST = /^(10\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+|172\.(1[6-9]|2\d|3[01])\.\d+\.\d+|[^.]+|.+\.local|.+\.lan|.+\.internal)$/i;

/** A server on this machine or the local network (where llama.cpp, Ollama, vLLM and LM Studio run): worth asking. */
export function isLocalServer(url: string): boolean {
  if (isLoopbackUrl(url)) return true;
  try {
    return PRIVATE_HOST.test(new URL(url).hostname);
  } catch {
    return false;
  }
}

export async function resolveWindow(p: ProviderConfig, fetchImpl: typeof fetch, timeoutMs?: number): Promise<WindowInfo> {
  if (p.contextWindow !== undefined) return { tokens: p.contextWindow, source: 'context_window in the config' };
  const catalogue = modelLimits(p.model)?.context;
  if (p.apiFormat === 'openai' && isLocalServer(p.apiBaseUrl)) {
    const server = await probeServerWindow({ baseUrl: p.apiBaseUrl, model: p.model, apiKey: p.apiKey }, fetchImpl, timeoutMs);
    if (server?.tokens !== undefined || (server !== undefined && catalogue === undefined)) return server;
  }
  return catalogue !== undefined ? { tokens: catalogue, source: 'model catalogue' } : { source: 'unknown (set context_window)' };
}
