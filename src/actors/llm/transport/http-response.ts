// The Response http-fetch.ts answers with: what the SDKs and the engines read of one (status, headers, the body as a
// web stream, the body read whole, clone), without Node's Response class (undici: see web-shims.ts). The body stays a
// Node stream until someone asks for the web one: the engines read it as it is (nodeBodyOf), sparing a web stream per call.
import { Readable } from 'node:stream';
import { FetchHeaders } from './web-shims.js';

const NODE_BODY = Symbol('yagent.nodeBody');

/** What this module reads a body through: a real ReadableStream, or the LazyBody standing in for one. */
type WebBody = Pick<ReadableStream<Uint8Array>, 'locked' | 'cancel' | 'tee' | 'values' | typeof Symbol.asyncIterator>;

export class HttpResponse {
  readonly type = 'basic';
  private used = false;
  private stream: WebBody | null = null;
  /** The web view began reading the Node stream (from then on only it may read). */
  private webStarted = false;

  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly headers: FetchHeaders,
    readonly url: string,
    readonly redirected: boolean,
    private source: Readable | null,
  ) {}

  /** The body as the Node stream it arrived as, once, if nobody has touched it yet (see nodeBodyOf). */
  [NODE_BODY](): Readable | null {
    if (this.used || this.webStarted || this.source === null || (this.stream?.locked ?? false)) return null;
    this.used = true;
    return this.source;
  }

  get [Symbol.toStringTag](): string {
    return 'Response';
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  /** A stand-in made on first access that builds the web stream, and reads the Node stream, only once used: an SDK that
   *  merely touches `body` (Anthropic's abandonment backstop does, per response) leaves the Node stream to nodeBodyOf
   *  and costs no ReadableStream (~20 µs to construct in Node 20). */
  get body(): ReadableStream<Uint8Array> | null {
    if (this.stream === null && this.source !== null && !this.used) {
      const src = this.source;
      this.stream = new LazyBody(() => lazyWebStream(src, () => (this.webStarted = true)));
    }
    return this.stream as ReadableStream<Uint8Array> | null;
  }

  /** Read whole or locked by a reader: the body can be read once. */
  get bodyUsed(): boolean {
    return this.used || (this.stream?.locked ?? false);
  }

  private async bytes(): Promise<Buffer> {
    if (this.bodyUsed) throw new TypeError('Body is unusable: Body has already been read');
    this.used = true;
    const from = this.webStarted ? this.stream : this.source;
    if (from === null) return Buffer.alloc(0);
    const chunks: Uint8Array[] = [];
    for await (const chunk of from as AsyncIterable<Uint8Array>) chunks.push(chunk);
    return Buffer.concat(chunks);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const b = await this.bytes();
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    // fetch decodes UTF-8 and drops a byte-order mark
    return new TextDecoder().decode(await this.bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.bytes()], { type: this.headers.get('content-type') ?? '' });
  }

  /** Both copies read the same bytes (the stream is teed). */
  clone(): HttpResponse {
    if (this.bodyUsed) throw new TypeError('Response.clone: Body has already been consumed');
    const web = this.body as WebBody | null;
    if (web === null) return new HttpResponse(this.status, this.statusText, new FetchHeaders(this.headers), this.url, this.redirected, null);
    const [mine, other] = web.tee();
    // both halves read through the web view from now on
    this.stream = mine;
    this.webStarted = true;
    const copy = new HttpResponse(this.status, this.statusText, new FetchHeaders(this.headers), this.url, this.redirected, null);
    copy.stream = other;
    copy.webStarted = true;
    return copy;
  }
}

/** `body` until it is used: ReadableStream's members, each building the web stream on first use (`instanceof
 *  ReadableStream` does not hold: no reader of ours or the SDKs' asks it of an answer's body). */
class LazyBody implements WebBody {
  private real: ReadableStream<Uint8Array> | null = null;
  constructor(private readonly make: () => ReadableStream<Uint8Array>) {}
  private web(): ReadableStream<Uint8Array> {
    return (this.real ??= this.make());
  }
  get locked(): boolean {
    return this.real?.locked ?? false;
  }
  get [Symbol.toStringTag](): string {
    return 'ReadableStream';
  }
  cancel(reason?: unknown): Promise<void> {
    return this.web().cancel(reason);
  }
  getReader(...args: Parameters<ReadableStream<Uint8Array>['getReader']>): ReturnType<ReadableStream<Uint8Array>['getReader']> {
    return this.web().getReader(...args);
  }
  pipeThrough<T>(...args: Parameters<ReadableStream<Uint8Array>['pipeThrough']>): ReadableStream<T> {
    return this.web().pipeThrough(...args) as ReadableStream<T>;
  }
  pipeTo(...args: Parameters<ReadableStream<Uint8Array>['pipeTo']>): Promise<void> {
    return this.web().pipeTo(...args);
  }
  tee(): [ReadableStream<Uint8Array>, ReadableStream<Uint8Array>] {
    return this.web().tee();
  }
  values(opts?: { preventCancel?: boolean }): ReturnType<ReadableStream<Uint8Array>['values']> {
    return this.web().values(opts);
  }
  [Symbol.asyncIterator](opts?: { preventCancel?: boolean }): ReturnType<ReadableStream<Uint8Array>['values']> {
    return this.web().values(opts);
  }
}

/** A web stream over `src` that attaches to it at its first read (or cancel), not when made. */
function lazyWebStream(src: Readable, onStart: () => void): ReadableStream<Uint8Array> {
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  const start = (): ReadableStreamDefaultReader<Uint8Array> => {
    if (reader === null) {
      onStart();
      reader = (Readable.toWeb(src) as ReadableStream<Uint8Array>).getReader();
    }
    return reader;
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(ctl) {
        const { done, value } = await start().read();
        if (done) ctl.close();
        else ctl.enqueue(value);
      },
      cancel: (reason) => start().cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

/** The Node stream under a response of this transport, claimed for reading (null for any other Response, or a body
 *  already read or turned into a web stream). */
export function nodeBodyOf(res: unknown): Readable | null {
  return res instanceof HttpResponse ? res[NODE_BODY]() : null;
}
