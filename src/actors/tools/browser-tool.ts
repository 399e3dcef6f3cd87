// Shared by the browser_* tools: their tags (effect `network`, serial: they all act on the one page), the call
// budget, and the one mapping of a BrowserError to the result the model reads.
import { z } from 'zod';
import { isBrowserError } from '../browser/errors.js';
import { fail } from './define.js';
import type { BrowserCallOptions, BrowserPort, CapabilityTags, ToolContext, ToolOutcome } from './types.js';

const DEFAULT_BROWSER_TIMEOUT_S = 30;
const MAX_BROWSER_TIMEOUT_S = 120;

export const timeoutParam = z
  .number()
  .int()
  .min(1)
  .max(MAX_BROWSER_TIMEOUT_S)
  .default(DEFAULT_BROWSER_TIMEOUT_S)
  .describe('Give up after this many seconds (the page view after the action gets a few more).');

export const refParam = z.number().int().min(1).describe('The element number [n] from the latest page view.');

/** `mutates`: the action can change the page or what a site stores (a click may submit a form); observing does not. */
export function browserTags(mutates: boolean, brief: CapabilityTags['brief'], over: Partial<CapabilityTags> = {}): CapabilityTags {
  return { effect: 'network', mutates, serial: true, needsAuth: false, pathParams: [], truncation: 'head', display: 'text', brief, ...over };
}

/** Runs a browser action; a BrowserError becomes an error result of its kind (never a crash of the turn). */
export async function withBrowser(ctx: ToolContext, timeoutSeconds: number, fn: (b: BrowserPort, o: BrowserCallOptions) => Promise<ToolOutcome>): Promise<ToolOutcome> {
  if (!ctx.browser) return fail('browser_unavailable', 'this agent has no browser: only the Browser agent does');
  try {
    return await fn(ctx.browser, { signal: ctx.signal, timeoutMs: timeoutSeconds * 1000 });
  } catch (e) {
    if (isBrowserError(e)) return fail(e.kind, e.message);
    throw e;
  }
}
