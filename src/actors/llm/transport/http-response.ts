// The Response http-fetch.ts answers with: what the SDKs and the engines read of one (status, headers, the body as a
// web stream, the body read whole, clone), without Node's Response class (undici: see web-shims.ts).
import { FetchHeaders } from './web-shims.js';

export class HttpResponse {
  readonly type = 'basic';
  private used = false;

  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly headers: FetchHeaders,
    readonly url: string,
    readonly redirected: boolean,
    private stream: ReadableStream<Uint8Array> | null,
  ) {}

  get [Symbol.toStringTag](): string {
    return 'Response';
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.stream;
  }

  /** Read whole or locked by a reader: the body can be read once. */
  get bodyUsed(): boolean {
    return this.used || (this.stream?.locked ?? false);
  }

  private async bytes(): Promise<Buffer> {
    if (this.bodyUsed) throw new TypeError('Body is unusable: Body has already been read');
    this.used = true;
    if (this.stream === null) return Buffer.alloc(0);
    const chunks: Uint8Array[] = [];
    for await (const chunk of this.stream) chunks.push(chunk);
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
    let other: ReadableStream<Uint8Array> | null = null;
    if (this.stream !== null) [this.stream, other] = this.stream.tee();
    return new HttpResponse(this.status, this.statusText, new FetchHeaders(this.headers), this.url, this.redirected, other);
  }
}
