// Suite `llm`: engine overhead per streamed call against a raw request of the same stream (zero-latency fake), sent
// with the primitive the engines send with (node:http, src/actors/llm/transport): a raw undici fetch would be the
// slower baseline and flatter the engine. A third side, the official SDK alone on the same transport, is the floor of
// an engine that keeps the SDKs on the wire.
import { pairedFigure, round, stats, type Figure, type Suite } from './lib.js';
import { FakeProvider } from '../src/actors/llm/fake/server.js';
import { buildAgentEngine } from '../src/actors/llm/build.js';
import { parseConfigText } from '../src/runtime/config/index.js';
import type { ChatMessage } from '../src/runtime/protocol/index.js';
import { AGENT_HEADER, sdkClientOptions } from '../src/actors/llm/engines/common.js';
import { readSse } from '../src/actors/llm/engines/sse-decode.js';
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { MessageCreateParamsStreaming } from '@anthropic-ai/sdk/resources/messages';
import { Agent, request } from 'node:http';

const PAIRS = 60;
const RUNS = 15;
const WARMUP_PAIRS = 100;
const TEXT = Array.from({ length: 40 }, (_, i) => `token${i} `);
const messages: ChatMessage[] = [
  { role: 'system', content: 'You are a benchmark.' },
  { role: 'user', content: 'Say something.' },
];
/** What any client of a stream must do with it (bench/reference-agent.mjs does the same): every `data:` line parsed
 *  as JSON. The raw side does it too, so both sides decode the same events. */
function decodedEvents(text: string): number {
  let n = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    const ev = JSON.parse(line.slice(6)) as Record<string, unknown>;
    n += Object.keys(ev).length;
  }
  return n;
}

/** Headers the client sets itself; everything else the SDK sent is replayed by the raw side. */
const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'keep-alive', 'transfer-encoding', 'accept-encoding']);

async function measure(format: 'openai' | 'anthropic', fake: FakeProvider): Promise<Figure[]> {
  const base = format === 'openai' ? fake.openaiBaseUrl : fake.anthropicBaseUrl;
  const cfg = parseConfigText(
    `[global.llm]\nuse_provider = "p"\n[global.llm.providers.p]\nmodel = "bench"\napi_base_url = "${base}"\napi_key = "k"\napi_format = "${format}"\n[routing]\nmode = "fixed"\n`,
    'bench.toml',
    {},
  );
  const agent = `bench-${format}`;
  const engine = buildAgentEngine(cfg, agent, { publish: () => undefined });
  const signal = new AbortController().signal;
  let sink = 0;
  const viaEngine = async (): Promise<void> => {
    const r = await engine.call({ messages, tools: [], signal, agent, onTextDelta: (t) => (sink += t.length) });
    sink += r.text.length;
  };
  // like with like: the raw side replays the exact request the engine sent (body bytes and headers),
  // so the server does identical work and the same stream comes back; only the client differs
  await viaEngine();
  const sent = fake.requestsFor(agent)[0];
  if (sent === undefined) throw new Error(`bench llm: the ${format} engine request never reached the fake`);
  const url = `${fake.url}${sent.path}`;
  // serialised per call, as any client must: the engine pays JSON.stringify on every request too
  const sentBody = sent.body;
  const headers = Object.fromEntries(Object.entries(sent.headers).filter(([k]) => !HOP_BY_HOP.has(k)));
  let rawBytes = 0;
  // the transport's pool settings: keep-alive, LIFO reuse
  const agentPool = new Agent({ keepAlive: true, scheduling: 'lifo', timeout: 4_000 });
  const rawFetch = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify(sentBody);
      const req = request(url, { method: 'POST', agent: agentPool, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('error', reject);
        res.on('end', () => {
          if ((res.statusCode ?? 0) >= 300) return reject(new Error(`bench llm: raw ${format} request failed with ${res.statusCode}: ${text}`));
          rawBytes = text.length;
          sink += text.length + decodedEvents(text);
          resolve();
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  // the floor of an engine that keeps the official SDK: the same client options (our transport), the same request
  // through the SDK (built once), its answer's events decoded by the same reader and each JSON-parsed — no engine
  // layers (messages, accumulator, retries, gate, routing)
  const sdk = await sdkFloorClient(format, base);
  const sdkBody = { ...(sentBody as Record<string, unknown>) };
  const viaSdk = async (): Promise<void> => {
    const res = await sdk(sdkBody, agent);
    await readSse(res, (ev) => {
      if (ev.data !== '[DONE]') sink += Object.keys(JSON.parse(ev.data) as Record<string, unknown>).length;
    });
  };
  const sides = [viaEngine, rawFetch, viaSdk];
  for (let i = 0; i < WARMUP_PAIRS; i++) for (const side of sides) await side();
  // calls alternate one by one (the order rotating each round) so machine noise and GC hit every side alike
  const eng: number[] = [];
  const raw: number[] = [];
  const floor: number[] = [];
  // CPU time per call too (the whole process, fake server included on every side): on a loaded machine the wall
  // time is mostly waiting for a core, the CPU time is the work (stderr only)
  const cpu: number[][] = [[], [], []];
  for (let run = 0; run < RUNS; run++) {
    const sum = [0n, 0n, 0n];
    const used = [0, 0, 0];
    for (let i = 0; i < PAIRS; i++) {
      for (let j = 0; j < sides.length; j++) {
        const k = (i + j) % sides.length;
        const c0 = process.cpuUsage();
        const t0 = process.hrtime.bigint();
        await (sides[k] as () => Promise<void>)();
        sum[k] = (sum[k] ?? 0n) + (process.hrtime.bigint() - t0);
        const c = process.cpuUsage(c0);
        used[k] = (used[k] ?? 0) + c.user + c.system;
      }
    }
    for (let k = 0; k < sides.length; k++) cpu[k]?.push((used[k] ?? 0) / 1000 / PAIRS);
    const [e = 0n, r = 0n, f = 0n] = sum;
    eng.push(Number(e) / 1e6 / PAIRS);
    raw.push(Number(r) / 1e6 / PAIRS);
    floor.push(Number(f) / 1e6 / PAIRS);
  }
  if (sink < 0) process.stderr.write('unreachable\n');
  // each run is a paired comparison: the reported run is the one with the median ratio
  const rawLabel = `raw node:http request + full read of the same ${format} SSE stream, each event's JSON parsed (same request bytes and pool settings, ${TEXT.length} text deltas, ${rawBytes} B)`;
  const figures = [
    pairedFigure(`${format}_streamed_call_overhead`, 'ms/call', eng, raw, '<= 1.2x raw node:http request', (v, b) => b > 0 && v / b <= 1.2, rawLabel),
    pairedFigure(`${format}_streamed_call_over_sdk`, 'ms/call', eng, floor, '<= 1.15x the SDK alone (same transport and reader)', (v, b) => b > 0 && v / b <= 1.15,
      `the official SDK alone (client built once, same options and transport): the same request, .asResponse(), events read by the same SSE reader and JSON-parsed (same round)`),
    pairedFigure(`${format}_sdk_floor_over_raw`, 'ms/call', floor, raw, '<= 1.2x raw node:http request (else the SDK alone misses the engine target)', (v, b) => b > 0 && v / b <= 1.2, rawLabel),
  ];
  // the floor imports the SDK as the engines do: the vendored, patched bundle (scripts/sdk-quiet-logs.mjs, sdk-fast-request.mjs)
  process.stderr.write(`llm ${format}: SDK of the floor and the engine: ${import.meta.resolve(format === 'openai' ? 'openai' : '@anthropic-ai/sdk')}\n`);
  process.stderr.write(`llm ${format}: engine runs ${eng.map(round).join(' ')} | raw runs ${raw.map(round).join(' ')} | sdk runs ${floor.map(round).join(' ')}\n`);
  const [ce = [], cr = [], cf = []] = cpu.map((c) => [stats(c).median]);
  process.stderr.write(`llm ${format}: CPU ms/call (medians) engine ${round(ce[0] ?? 0)} raw ${round(cr[0] ?? 0)} sdk ${round(cf[0] ?? 0)}: engine/raw ${((ce[0] ?? 0) / (cr[0] ?? 1)).toFixed(2)}x, engine/sdk ${((ce[0] ?? 0) / (cf[0] ?? 1)).toFixed(2)}x, sdk/raw ${((cf[0] ?? 0) / (cr[0] ?? 1)).toFixed(2)}x\n`);
  agentPool.destroy();
  return figures;
}

/** The format's SDK client over our transport, built once; sends one streamed request and answers the raw Response. */
async function sdkFloorClient(format: 'openai' | 'anthropic', base: string): Promise<(body: Record<string, unknown>, agent: string) => Promise<{ readonly body: ReadableStream<Uint8Array> | null }>> {
  const options = sdkClientOptions({ apiKey: 'k', apiBaseUrl: base }, undefined);
  const headers = (agent: string): { headers: Record<string, string> } => ({ headers: { [AGENT_HEADER]: agent } });
  if (format === 'openai') {
    const { OpenAI } = await import('openai');
    const client = new OpenAI(options);
    return (body, agent) => client.chat.completions.create(body as unknown as ChatCompletionCreateParamsStreaming, headers(agent)).asResponse();
  }
  const { Anthropic } = await import('@anthropic-ai/sdk');
  // as the engine builds it: no per-call (no-op) tracing span
  const client = new Anthropic({ ...options, openTelemetry: false });
  return (body, agent) => client.messages.create(body as unknown as MessageCreateParamsStreaming, headers(agent)).asResponse();
}

const suite: Suite = {
  name: 'llm',
  async run() {
    const fake = await FakeProvider.start({ fallback: { text: TEXT, usage: { input: 20, output: 40 } } });
    try {
      return [...(await measure('openai', fake)), ...(await measure('anthropic', fake))];
    } finally {
      await fake.close();
    }
  },
};
export default suite;
