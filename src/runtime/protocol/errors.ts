// Errors cross threads as data: never rely on instanceof after postMessage.
import { z } from 'zod';

export interface SerializedError {
  name: string;
  message: string;
  code?: string | undefined;
  stack?: string | undefined;
  cause?: SerializedError | undefined;
  /** CANCELLED only: what the stopped actor's run() returned before its worker ended (its usage, say). */
  result?: unknown;
}

export const SerializedErrorSchema: z.ZodType<SerializedError> = z.lazy(() =>
  z.object({
    name: z.string(),
    message: z.string(),
    code: z.string().optional(),
    stack: z.string().optional(),
    cause: SerializedErrorSchema.optional(),
    result: z.unknown().optional(),
  }),
);

/** Serialise any thrown value; depth-limited so cyclic causes cannot explode. */
export function serializeError(err: unknown, depth = 0): SerializedError {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    const cause = (err as { cause?: unknown }).cause;
    const result = (err as { result?: unknown }).result;
    return {
      name: err.name,
      message: err.message,
      code: typeof code === 'string' ? code : typeof code === 'number' ? String(code) : undefined,
      stack: err.stack,
      cause: cause !== undefined && depth < 4 ? serializeError(cause, depth + 1) : undefined,
      ...(result !== undefined ? { result } : {}),
    };
  }
  return { name: 'NonError', message: typeof err === 'string' ? err : safeJson(err) };
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/** A real Error rebuilt from data, keeping name/code/cause so callers can branch on `code`. */
export class RemoteError extends Error {
  readonly code: string | undefined;
  readonly remoteStack: string | undefined;
  readonly result: unknown;
  constructor(data: SerializedError) {
    super(data.message, data.cause ? { cause: new RemoteError(data.cause) } : undefined);
    this.name = data.name;
    this.code = data.code;
    this.remoteStack = data.stack;
    this.result = data.result;
  }
}
