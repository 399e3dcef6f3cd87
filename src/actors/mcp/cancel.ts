// A call's cancel switch without an AbortController. On Node 20 reading `new AbortController().signal` builds an
// EventTarget and then changes its prototype (~7 µs), and a listener on it a few µs more: the mcp worker paid that on
// every call (issue 29, `--cpu-prof` of the worker: `createAbortSignal` 15–17 µs a call against nothing on the floor).

/** What a call's cancellation needs of its signal: what the MCP SDK's `Protocol.request` reads of `options.signal`
 *  (`aborted`, `reason`, `throwIfAborted`, one 'abort' listener). An AbortSignal has it, and so does a `CallCancel`. */
export interface CallSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  throwIfAborted(): void;
  addEventListener(type: 'abort', listener: () => void): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** The facade's per-call switch: AbortSignal's semantics for these members (a listener runs once, at the abort; one
 *  added after it never runs; `throwIfAborted` throws the reason, by default an AbortError). */
export class CallCancel implements CallSignal {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] | null = null;

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  addEventListener(type: 'abort', listener: () => void): void {
    if (type !== 'abort' || this.aborted) return;
    (this.listeners ??= []).push(listener);
  }

  removeEventListener(type: 'abort', listener: () => void): void {
    const i = type === 'abort' ? (this.listeners?.indexOf(listener) ?? -1) : -1;
    if (i >= 0) this.listeners?.splice(i, 1);
  }

  /** Every listener runs, even after one throws; the first throw is then rethrown (an EventTarget reports it apart). */
  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.listeners ?? [];
    this.listeners = null;
    let failed: { err: unknown } | undefined;
    for (const l of listeners) {
      try {
        l();
      } catch (err) {
        failed ??= { err };
      }
    }
    if (failed) throw failed.err;
  }
}
