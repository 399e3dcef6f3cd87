// Token counts with the model's real encoding (js-tiktoken), computed on the process's CPU pool (CPU_SERVICE).
// Measured (issue 11): loading the ranks costs 1.4 s / ~60 MB (cl100k) and 3.6 s / ~150 MB (o200k) per thread,
// so agent workers never load them: one pool thread does, and every count is a round trip to it.
import type { Remote } from '../../runtime/actor.js';
import type { CpuService } from '../../runtime/cpu-service.js';
import type { ChatMessage } from '../../runtime/protocol/index.js';
import { count as countHere, warm as warmHere, TOKEN_JOB_MODULE, type Encoding } from './token-job.js';

export type { Encoding };

/** o200k_base for the gpt-4o / gpt-4.1 / gpt-4.5 / gpt-5 / o-series families, cl100k_base otherwise (Claude:
 *  an estimate, corrected by the provider's reported usage via `TokenCounter.observeUsage`). */
export function encodingFor(model: string): Encoding {
  const m = model.toLowerCase().replace(/^.*\//, '');
  return /^(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o[1-9])/.test(m) ? 'o200k_base' : 'cl100k_base';
}

/** Where counts are computed: the CPU pool in production, this thread in in-process tests and tools. */
export interface TokenBackend {
  count(encoding: Encoding, texts: string[]): Promise<number[]>;
  warm(encoding: Encoding): Promise<void>;
}

export function poolBackend(cpu: Remote<CpuService> | CpuService): TokenBackend {
  return {
    count: async (encoding, texts) => (await cpu.run({ module: TOKEN_JOB_MODULE, name: 'count' }, { encoding, texts })) as number[],
    warm: async (encoding) => {
      await cpu.run({ module: TOKEN_JOB_MODULE, name: 'warm' }, { encoding });
    },
  };
}

/** Counts in this thread (loads the ranks here: see the measurement above). */
export const inPlaceBackend: TokenBackend = {
  count: (encoding, texts) => countHere({ encoding, texts }),
  warm: async (encoding) => {
    await warmHere({ encoding });
  },
};

const PER_MESSAGE_OVERHEAD = 4;

/** The text of a message as the model reads it (what every count encodes). */
export function messageText(m: ChatMessage): string {
  switch (m.role) {
    case 'system':
    case 'user':
      return m.content;
    case 'tool':
      return `${m.name}\n${m.content}`;
    case 'assistant':
      return [m.content, ...(m.toolCalls ?? []).map((t) => `${t.name}${t.arguments}`), ...(m.reasoning ?? []).map((r) => r.text)].join('\n');
  }
}

const isClaude = (model: string): boolean => /claude/i.test(model);

/** One per agent worker. Message counts are cached per message object and encoding (history is immutable). */
export class TokenCounter {
  private readonly cache = new WeakMap<ChatMessage, Partial<Record<Encoding, number>>>();
  /** Claude: reported input tokens ÷ our estimate of the same prompt, from the latest call that reported usage. */
  private readonly correction = new Map<string, number>();

  private readonly warming = new Map<Encoding, Promise<boolean>>();

  constructor(private readonly backend: TokenBackend) {}

  async countText(text: string, model: string): Promise<number> {
    const enc = encodingFor(model);
    await this.warming.get(enc);
    const [n = 0] = await this.backend.count(enc, [text]);
    return this.corrected(model, n);
  }

  /** Tokens of a message list as the model sees it (text + 4 per message); only uncached messages are encoded,
   *  all in one pool job. For Claude the estimate is scaled by the last `observeUsage` ratio. */
  async countMessageTokens(messages: readonly ChatMessage[], model: string): Promise<number> {
    const enc = encodingFor(model);
    await this.warming.get(enc);
    const missing = messages.filter((m) => this.cache.get(m)?.[enc] === undefined);
    if (missing.length > 0) {
      const counts = await this.backend.count(enc, missing.map(messageText));
      missing.forEach((m, i) => this.cache.set(m, { ...this.cache.get(m), [enc]: (counts[i] ?? 0) + PER_MESSAGE_OVERHEAD }));
    }
    let total = 0;
    for (const m of messages) total += this.cache.get(m)?.[enc] ?? 0;
    return this.corrected(model, total);
  }

  /** Feeds the provider's reported input tokens for a prompt we estimated (Claude has no public tokenizer). */
  observeUsage(model: string, estimatedInput: number, reportedInput: number): void {
    if (isClaude(model) && estimatedInput > 0 && reportedInput > 0) this.correction.set(model, reportedInput / estimatedInput);
  }

  /** Starts loading the model's encoder on the pool ahead of the first count (the next count awaits it). */
  warm(model: string): void {
    const enc = encodingFor(model);
    if (this.warming.has(enc)) return;
    this.warming.set(enc, this.backend.warm(enc).then(() => true, () => false));
  }

  private corrected(model: string, n: number): number {
    const k = isClaude(model) ? this.correction.get(model) : undefined;
    return k === undefined ? n : Math.round(n * k);
  }
}
