// ConversationMemory: the message list behind methods only (memory rule 3); actors import it from here.
import type { ChatMessage } from '../runtime/protocol/index.js';
import type { MemoryJson } from './api.js';

export const DEFAULT_MAX_SIZE = 500;

const copy = (m: ChatMessage): ChatMessage => structuredClone(m);

/** No exported array: reads hand out copies, writes go through methods, the wire shape is `{messages, max_size}`. */
export class ConversationMemory {
  #messages: ChatMessage[] = [];
  #maxSize: number;

  constructor(maxSize = DEFAULT_MAX_SIZE) {
    this.#maxSize = maxSize;
  }

  get maxSize(): number {
    return this.#maxSize;
  }

  get length(): number {
    return this.#messages.length;
  }

  /** A deep copy: mutating it never reaches the memory. */
  snapshot(): ChatMessage[] {
    return this.#messages.map(copy);
  }

  /** Appends copies, then trims to maxSize keeping a leading system message. */
  append(...messages: ChatMessage[]): void {
    for (const m of messages) this.#messages.push(copy(m));
    this.#trim();
  }

  addUser(content: string): void {
    this.append({ role: 'user', content });
  }

  addAssistant(content: string): void {
    this.append({ role: 'assistant', content });
  }

  /** Loads a whole list (resume, compaction) without the maxSize trim. */
  replace(messages: readonly ChatMessage[]): void {
    this.#messages = messages.map(copy);
  }

  /** A copy of the last message, never a handle into the list. */
  lastMessage(): ChatMessage | null {
    const m = this.#messages[this.#messages.length - 1];
    return m ? copy(m) : null;
  }

  #trim(): void {
    if (this.#maxSize <= 0 || this.#messages.length <= this.#maxSize) return;
    const head = this.#messages[0]?.role === 'system' ? 1 : 0;
    const excess = this.#messages.length - this.#maxSize;
    this.#messages.splice(head, excess);
  }

  toJSON(): MemoryJson {
    return { messages: this.snapshot(), max_size: this.#maxSize };
  }

  static fromJSON(data: MemoryJson): ConversationMemory {
    const m = new ConversationMemory(data.max_size);
    m.replace(data.messages);
    return m;
  }
}
