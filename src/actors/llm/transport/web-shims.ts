// What the vendored SDKs get for the free names `Headers`, `FormData` and `Response` (scripts/vendor-packages.mjs
// injects this module): Node defines all three by loading undici, ~45 ms of CPU per thread, which http-fetch.ts
// makes unnecessary. The npm Headers polyfill reads globalThis.Headers in its constructor, so it would load undici too.

const NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// a value is trimmed of HTTP whitespace; CR, LF and NUL inside it could split a request
const BAD_VALUE = /[\r\n\0]/;

/** Names already checked, as given → lower-cased: every request merges the same dozen names several times (the SDKs'
 *  header merge, our copy), and a map lookup costs less than the regex and the lower-casing. Bounded. */
const checkedNames = new Map<string, string>();
const CHECKED_NAMES_MAX = 256;

function headerName(name: string): string {
  const n = String(name);
  const known = checkedNames.get(n);
  if (known !== undefined) return known;
  if (!NAME.test(n)) throw new TypeError(`Headers: invalid header name "${n}"`);
  const lower = n.toLowerCase();
  if (checkedNames.size >= CHECKED_NAMES_MAX) checkedNames.clear();
  checkedNames.set(n, lower);
  return lower;
}

/** Tab, LF, CR or space: what fetch trims off a header value. */
function httpSpace(code: number): boolean {
  return code === 9 || code === 10 || code === 13 || code === 32;
}

function headerValue(value: unknown): string {
  let v = String(value);
  // the trim's regex runs only when an end is whitespace (rarely): ~10 headers a request, two a model call
  if (v !== '' && (httpSpace(v.charCodeAt(0)) || httpSpace(v.charCodeAt(v.length - 1)))) v = v.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  if (BAD_VALUE.test(v)) throw new TypeError(`Headers: invalid header value for a header (${JSON.stringify(v.slice(0, 40))})`);
  return v;
}

type Pairs = Iterable<readonly [string, string]> | Iterable<readonly string[]>;
export type HeadersLike = Pairs | Record<string, string | readonly string[]> | { forEach(cb: (value: string, name: string) => void): void };

/** Any Headers (ours or undici's): both carry the tag and iterate as [name, value] pairs. */
function isHeaders(v: unknown): v is Iterable<[string, string]> {
  return typeof v === 'object' && v !== null && (v as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === 'Headers';
}

/** What a FetchHeaders hands a copy of itself (the SDK bundles carry their own copy of this class: a symbol both share). */
const STATE = Symbol.for('yagent.FetchHeaders.state');
interface State {
  map: ReadonlyMap<string, string>;
  cookies: readonly string[];
  order: string[] | null;
}

/** WHATWG Headers: names case-insensitive, repeated values joined with ", " (set-cookie kept apart), sorted iteration. */
export class FetchHeaders {
  private map = new Map<string, string>();
  private readonly cookies: string[] = [];
  /** The names in iteration order, kept until a name comes or goes: one set of headers is iterated several times per
   *  request (the SDK's log details, our copy, the wire record), each a sort otherwise. */
  private order: string[] | null = null;

  constructor(init?: HeadersLike | null) {
    if (init === undefined || init === null) return;
    const state = (init as { [STATE]?: () => State })[STATE];
    if (typeof state === 'function') {
      // one of ours (each request's headers are copied once from the SDK's): its checked state as it is, no iteration
      const { map, cookies, order } = state.call(init);
      this.map = new Map(map);
      this.cookies.push(...cookies);
      this.order = order;
      return;
    }
    if (isHeaders(init)) {
      // a Headers checked its names and values when they went in, and iterates them lower-cased: copied as they are
      for (const [name, value] of init) this.put(name, value);
      return;
    }
    if (Symbol.iterator in Object(init)) {
      for (const pair of init as Iterable<readonly string[]>) {
        if (pair.length !== 2) throw new TypeError('Headers: each header pair must be [name, value]');
        this.append(pair[0] ?? '', pair[1] ?? '');
      }
      return;
    }
    for (const [name, value] of Object.entries(init as Record<string, string | readonly string[]>)) {
      this.append(name, Array.isArray(value) ? value.join(', ') : (value as string));
    }
  }

  /** An answer's head as node:http parsed it (`rawHeaders`: name, value, name, value…): its parser has refused bad names
   *  and values and trimmed the values already, so they go in unchecked. */
  static fromRaw(raw: readonly string[]): FetchHeaders {
    const h = new FetchHeaders();
    for (let i = 0; i + 1 < raw.length; i += 2) h.put((raw[i] ?? '').toLowerCase(), raw[i + 1] ?? '');
    return h;
  }

  /** `instanceof Headers` in the SDKs holds for undici's Headers too (a caller may pass either). */
  static [Symbol.hasInstance](v: unknown): boolean {
    return isHeaders(v);
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }

  /** The state a copy starts from; `order` is shared (never changed in place: replaced when a name comes or goes). */
  [STATE](): State {
    return { map: this.map, cookies: this.cookies, order: this.order };
  }

  append(name: string, value: string): void {
    this.put(headerName(name), headerValue(value));
  }

  /** append() of a lower-cased name and a checked value. */
  private put(n: string, v: string): void {
    if (n === 'set-cookie') this.cookies.push(v);
    const cur = this.map.get(n);
    if (cur === undefined) this.order = null;
    this.map.set(n, cur === undefined ? v : `${cur}, ${v}`);
  }

  set(name: string, value: string): void {
    const n = headerName(name);
    const v = headerValue(value);
    if (n === 'set-cookie') this.cookies.splice(0, this.cookies.length, v);
    if (!this.map.has(n)) this.order = null;
    this.map.set(n, v);
  }

  delete(name: string): void {
    const n = headerName(name);
    if (n === 'set-cookie') this.cookies.length = 0;
    if (this.map.delete(n)) this.order = null;
  }

  get(name: string): string | null {
    return this.map.get(headerName(name)) ?? null;
  }

  has(name: string): boolean {
    return this.map.has(headerName(name));
  }

  getSetCookie(): string[] {
    return [...this.cookies];
  }

  /** The pairs in name order, as a list (an array's iterator costs less than a generator: both SDKs iterate every
   *  request's and answer's headers, the transport too). */
  private pairs(): [string, string][] {
    const out: [string, string][] = [];
    for (const name of (this.order ??= [...this.map.keys()].sort())) {
      if (name === 'set-cookie') for (const c of this.cookies) out.push([name, c]);
      else out.push([name, this.map.get(name) ?? '']);
    }
    return out;
  }

  entries(): IterableIterator<[string, string]> {
    return this.pairs()[Symbol.iterator]();
  }

  keys(): IterableIterator<string> {
    return this.pairs()
      .map(([name]) => name)
      [Symbol.iterator]();
  }

  values(): IterableIterator<string> {
    return this.pairs()
      .map(([, value]) => value)
      [Symbol.iterator]();
  }

  /** The pairs as a plain record, in name order (what node:http sends). */
  record(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of (this.order ??= [...this.map.keys()].sort())) {
      // as the pairs would give it: the last of several cookies
      if (name !== 'set-cookie') out[name] = this.map.get(name) ?? '';
      else if (this.cookies.length > 0) out[name] = this.cookies[this.cookies.length - 1] ?? '';
    }
    return out;
  }

  forEach(cb: (value: string, name: string, headers: FetchHeaders) => void, thisArg?: unknown): void {
    for (const [name, value] of this.pairs()) cb.call(thisArg, value, name, this);
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

export { FetchHeaders as Headers };

/** A stand-in for a global the SDKs only construct on paths we never take (uploads): `instanceof` answers from the
 *  value's tag without touching the global; constructing forwards to Node's own class (loading undici then). */
function lazyGlobal(name: 'FormData' | 'Response'): new (...args: never[]) => object {
  const Forward = function (this: unknown, ...args: unknown[]): object {
    const Real = (globalThis as unknown as Record<string, new (...a: unknown[]) => object>)[name];
    if (Real === undefined) throw new TypeError(`${name} is not available in this runtime`);
    return new Real(...args);
  } as unknown as new (...args: never[]) => object;
  Object.defineProperty(Forward, 'name', { value: name });
  Object.defineProperty(Forward, Symbol.hasInstance, {
    value: (v: unknown): boolean => {
      if (typeof v !== 'object' || v === null || (v as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] !== name) return false;
      const Real = (globalThis as unknown as Record<string, new () => object>)[name];
      return Real !== undefined && v instanceof Real;
    },
  });
  return Forward;
}

export const FormData = lazyGlobal('FormData');
export const Response = lazyGlobal('Response');
