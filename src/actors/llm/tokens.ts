// Token counts with the model's real encoding (js-tiktoken), computed on the process's CPU pool (CPU_SERVICE).
// Measured (issue 11): loading the ranks costs 1.4 s / ~60 MB (cl100k) and 3.6 s / ~150 MB (o200k) per thread,
// so agent workers never load them: one pool thread does, and every count is a round trip to it.
import type { Remote } from '../../runtime/actor.js';
import type { CpuService } from '../../runtime/cpu-service.js';
import type { ChatMessage, ToolDef } from '../../runtime/protocol/index.js';
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

/** A count past this is stopped with its pool thread (under the 30 s RPC timeout, so the caller's estimate fallback and
 *  the pool's stop come together: a count left running would hold the process's one pool thread for every agent). */
export const TOKEN_COUNT_TIMEOUT_MS = 20_000;

/** Texts up to this many characters in all are counted without a timeout: the count is linear (~1 µs a character,
 *  `tokens_unbroken_run_64k_per_char`), so they cannot come near it, and the timeout's abort signal cost piscina
 *  ~35 µs of a ~130 µs count (`tokens_small_count_p50`). */
export const UNTIMED_COUNT_CHARS = 65_536;

export function poolBackend(cpu: Remote<CpuService> | CpuService, opts: { timeoutMs?: number } = {}): TokenBackend {
  const timeoutMs = opts.timeoutMs ?? TOKEN_COUNT_TIMEOUT_MS;
  const job = { module: TOKEN_JOB_MODULE, name: 'count' };
  const timed = { ...job, timeoutMs };
  const chars = (texts: string[]): number => texts.reduce((n, t) => n + t.length, 0);
  return {
    count: async (encoding, texts) => (await cpu.run(chars(texts) > UNTIMED_COUNT_CHARS ? timed : job, { encoding, texts })) as number[],
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

/** The text of a tool definition as the provider receives it (name, description, JSON schema). */
export function toolText(t: ToolDef): string {
  return `${t.name}\n${t.description}\n${JSON.stringify(t.parameters)}`;
}

/** What one request sent: the provider's reported input tokens cover all of it. */
export interface SentPrompt {
  messages: readonly ChatMessage[];
  tools: readonly ToolDef[];
}

const isClaude = (model: string): boolean => /claude/i.test(model);

/** One per agent worker. Counts are cached per message (and tool definition) object and encoding (history is immutable). */
export class TokenCounter {
  private readonly cache = new WeakMap<object, Partial<Record<Encoding, number>>>();
  /** Claude: reported input tokens ÷ our estimate of the same prompt, from the latest call that reported usage. */
  private readonly correction = new Map<string, number>();
  /** Claude: the latest call's prompt and reported input, not yet estimated (the next count for the model does it). */
  private readonly observed = new Map<string, { prompt: SentPrompt; reported: number }>();
  private readonly settling = new Map<string, Promise<void>>();

  private readonly warming = new Map<Encoding, Promise<boolean>>();

  constructor(private readonly backend: TokenBackend) {}

  async countText(text: string, model: string): Promise<number> {
    const enc = encodingFor(model);
    await this.warming.get(enc);
    await this.settle(model);
    const [n = 0] = await this.backend.count(enc, [text]);
    return this.corrected(model, n);
  }

  /** Tokens of a message list as the model sees it (text + 4 per message, plus `tools`' definitions); only uncached messages are encoded,
   *  all in one pool job. For Claude the estimate is scaled by the ratio of the latest `observeUsage`. */
  async countMessageTokens(messages: readonly ChatMessage[], model: string, tools: readonly ToolDef[] = []): Promise<number> {
    await this.settle(model);
    return this.corrected(model, await this.rawCount(messages, tools, model));
  }

  /** After a successful call: the provider's reported input tokens for the prompt it was sent (Claude has no public
   *  tokenizer, so later estimates for the model are scaled by reported ÷ estimated). Costs nothing here: the
   *  prompt is estimated by the next count for the model, so a run that never counts never loads an encoder. */
  observeUsage(model: string, prompt: SentPrompt, reportedInput: number): void {
    if (!isClaude(model) || reportedInput <= 0) return;
    // the loop keeps appending to its list: keep the messages as they were sent
    this.observed.set(model, { prompt: { messages: [...prompt.messages], tools: [...prompt.tools] }, reported: reportedInput });
  }

  /** Starts loading the model's encoder on the pool ahead of the first count (the next count awaits it). */
  warm(model: string): void {
    const enc = encodingFor(model);
    if (this.warming.has(enc)) return;
    this.warming.set(enc, this.backend.warm(enc).then(() => true, () => false));
  }

  /** Turns the latest observation into the correction factor (one estimate at a time per model, in order). */
  private settle(model: string): Promise<void> {
    const o = this.observed.get(model);
    if (o !== undefined) {
      this.observed.delete(model);
      const prev = this.settling.get(model) ?? Promise.resolve();
      const next = prev.then(async () => {
        const estimate = await this.rawCount(o.prompt.messages, o.prompt.tools, model);
        if (estimate > 0) this.correction.set(model, o.reported / estimate);
      });
      // the caller of this count sees a failed estimate; later counts do not inherit it
      this.settling.set(model, next.catch(() => undefined));
      return next;
    }
    return this.settling.get(model) ?? Promise.resolve();
  }

  /** The uncorrected estimate: messages (text + 4 each) and tool definitions, cached per object, new ones in one job. */
  private async rawCount(messages: readonly ChatMessage[], tools: readonly ToolDef[], model: string): Promise<number> {
    const enc = encodingFor(model);
    await this.warming.get(enc);
    const known = (o: object): boolean => this.cache.get(o)?.[enc] !== undefined;
    const newMessages = messages.filter((m) => !known(m));
    const newTools = tools.filter((t) => !known(t));
    if (newMessages.length + newTools.length > 0) {
      const counts = await this.backend.count(enc, [...newMessages.map(messageText), ...newTools.map(toolText)]);
      const put = (o: object, n: number): void => {
        this.cache.set(o, { ...this.cache.get(o), [enc]: n });
      };
      newMessages.forEach((m, i) => put(m, (counts[i] ?? 0) + PER_MESSAGE_OVERHEAD));
      newTools.forEach((t, i) => put(t, counts[newMessages.length + i] ?? 0));
    }
    let total = 0;
    for (const m of messages) total += this.cache.get(m)?.[enc] ?? 0;
    for (const t of tools) total += this.cache.get(t)?.[enc] ?? 0;
    return total;
  }

  private corrected(model: string, n: number): number {
    const k = isClaude(model) ? this.correction.get(model) : undefined;
    return k === undefined ? n : Math.round(n * k);
  }
}
