// Token counting job for the process's CPU pool (CPU_SERVICE): the encoder's ranks load once per pool thread.
import type { Tiktoken } from 'js-tiktoken/lite';

export type Encoding = 'o200k_base' | 'cl100k_base';
export const TOKEN_JOB_MODULE = 'src/actors/llm/token-job.js';

const encoders = new Map<Encoding, Promise<Tiktoken>>();

async function load(encoding: Encoding): Promise<Tiktoken> {
  const { Tiktoken: T } = await import('js-tiktoken/lite');
  const ranks = encoding === 'o200k_base' ? (await import('js-tiktoken/ranks/o200k_base')).default : (await import('js-tiktoken/ranks/cl100k_base')).default;
  return new T(ranks);
}

function encoder(encoding: Encoding): Promise<Tiktoken> {
  let e = encoders.get(encoding);
  if (!e) encoders.set(encoding, (e = load(encoding)));
  return e;
}

/** Token count of each text; special-token strings in user text count as plain text, never throw. */
export async function count(input: { encoding: Encoding; texts: string[] }): Promise<number[]> {
  const enc = await encoder(input.encoding);
  return input.texts.map((t) => (t === '' ? 0 : enc.encode(t, [], []).length));
}

/** Loads the encoder ahead of the first count (its ranks take seconds to decode). */
export async function warm(input: { encoding: Encoding }): Promise<boolean> {
  await encoder(input.encoding);
  return true;
}
