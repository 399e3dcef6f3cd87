// The main thread's half of the pre-sent first request (transport/presend.ts): the request is built by the provider's
// own engine and SDK, exactly as the claiming thread's engine builds it, and sent through `offer`; the engine's call on
// this thread ends as soon as the request is on its way (nothing reads the answer here).
import type { ProviderConfig } from '../../runtime/config/index.js';
import type { ChatMessage, ToolDef } from '../../runtime/protocol/index.js';
import { rawEngine } from './build.js';
import { httpFetch } from './transport/http-fetch.js';
import type { PresentOffer } from './transport/presend.js';

class Sent extends Error {}

/** True once the request was handed to `transport`; false when the offer could not be made (the claiming engine had
 *  sent its own first request already). A failure to build the request throws. */
export async function presendCall(offer: PresentOffer, provider: ProviderConfig, call: { messages: ChatMessage[]; tools: ToolDef[]; agent: string }, maxAnswerChars: number | undefined, transport: typeof fetch = httpFetch): Promise<boolean> {
  let handed = false;
  const capture = ((url: string, init: { method: string; headers: unknown; body: string }) => {
    handed = offer.send(transport, String(url), init);
    return Promise.reject(new Sent('pre-sent'));
  }) as unknown as typeof fetch;
  await rawEngine(provider, { fetch: capture }, maxAnswerChars)
    .call({ ...call, signal: new AbortController().signal })
    .catch((e: unknown) => {
      // the engine reports the capture's rejection as its own error: expected once the request is on its way
      if (!handed && !(e instanceof Sent)) throw e;
    });
  return handed;
}
