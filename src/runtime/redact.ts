// The ONE redaction function: every log line (and every record the store writes) passes through it, so API keys,
// bearer tokens and the values of secret-named variables never reach the data root.
import { secretValues } from './secrets.js';

export const REDACTED = '[REDACTED]';

/** Header / field names whose whole string value is a credential. */
const CREDENTIAL_FIELD = /^(authorization|proxy-authorization|x-api-key|api[-_]?key)$/i;
/** `Bearer xxx` anywhere, and `Authorization: <scheme> xxx` / `"authorization":"xxx"` in text. */
const BEARER = /\bBearer\s+([A-Za-z0-9\-._~+/]+=*)/gi;
const AUTH_HEADER = /(authorization["']?\s*[:=]\s*["']?)(?:(?:basic|bearer|token)\s+)?[^\s"',}]{8,}/gi;

/** A credential, not prose ("Bearer tokens are…"): a digit in it, or long. */
const looksLikeToken = (t: string): boolean => t.length >= 24 || (t.length >= 8 && /\d/.test(t));
const QUICK = /bearer|authorization/i;

export interface Redactor {
  /** The text with every known secret value and bearer/authorization credential replaced by [REDACTED]. */
  text(s: string): string;
  /** Deep copy-on-write: strings redacted, objects copied only where something changed. */
  value<T>(v: T): T;
  /** How many secret values it knows (tests, diagnostics; never the values). */
  readonly size: number;
}

/**
 * A redactor for `secrets` (each provider's configured key, any extra value) plus every secret-named variable of
 * `env` (`secretValues`). Values shorter than 8 characters are skipped, like `secretValues` does.
 */
export function makeRedactor(secrets: readonly string[], env: NodeJS.ProcessEnv = {}): Redactor {
  const values = [...new Set([...secrets.filter((s) => s.length >= 8), ...secretValues(env)])].sort((a, b) => b.length - a.length);
  const text = (s: string): string => {
    let out = s;
    for (const v of values) if (out.includes(v)) out = out.split(v).join(REDACTED);
    if (QUICK.test(out)) out = out.replace(BEARER, (m, tok: string) => (looksLikeToken(tok) ? `Bearer ${REDACTED}` : m)).replace(AUTH_HEADER, `$1${REDACTED}`);
    return out;
  };
  const value = <T>(v: T, field?: string): T => {
    if (typeof v === 'string') return (field !== undefined && CREDENTIAL_FIELD.test(field) && v !== '' ? REDACTED : text(v)) as T;
    if (typeof v !== 'object' || v === null) return v;
    // plain loops, no entry arrays or closures: every record the store writes passes here (issue 29)
    if (Array.isArray(v)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const x: unknown = v[i];
        const r = value(x);
        if (r !== x) (copy ??= [...v])[i] = r;
      }
      return (copy ?? v) as T;
    }
    const o = v as Record<string, unknown>;
    let copy: Record<string, unknown> | undefined;
    for (const k in o) {
      if (!Object.hasOwn(o, k)) continue;
      const x = o[k];
      const r = value(x, k);
      if (r !== x) (copy ??= { ...o })[k] = r;
    }
    return (copy ?? v) as T;
  };
  return { text, value: (v) => value(v), size: values.length };
}
