// Suite `llm`: engine overhead per streamed call against a raw request of the same stream (zero-latency fake), sent
// with the primitive the engines send with (node:http, src/actors/llm/transport): a raw undici fetch would be the
// slower baseline and flatter the engine.
import { pairedFigure, round, type Figure, type Suite } from './lib.js';
import { FakeProvider } from '../src/actors/llm/fake/server.js';
import { buildAgentEngine } from '../src/actors/llm/build.js';
import { parseConfigText } from '../src/runtime/config/index.js';
import type { ChatMessage } from '../src/runtime/protocol/index.js';
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

async function measure(format: 'openai' | 'anthropic', fake: FakeProvider): Promise<Figure> {
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
  for (let i = 0; i < WARMUP_PAIRS; i++) {
    await viaEngine();
    await rawFetch();
  }
  // calls alternate one by one (order swapped each pair) so machine noise and GC hit both sides alike
  const eng: number[] = [];
  const raw: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    let e = 0n;
    let r = 0n;
    for (let i = 0; i < PAIRS; i++) {
      const t0 = process.hrtime.bigint();
      await (i % 2 === 0 ? viaEngine() : rawFetch());
      const t1 = process.hrtime.bigint();
      await (i % 2 === 0 ? rawFetch() : viaEngine());
      const t2 = process.hrtime.bigint();
      e += i % 2 === 0 ? t1 - t0 : t2 - t1;
      r += i % 2 === 0 ? t2 - t1 : t1 - t0;
    }
    eng.push(Number(e) / 1e6 / PAIRS);
    raw.push(Number(r) / 1e6 / PAIRS);
  }
  if (sink < 0) process.stderr.write('unreachable\n');
  // each run is a paired comparison: the reported run is the one with the median engine/raw ratio
  const f = pairedFigure(
    `${format}_streamed_call_overhead`,
    'ms/call',
    eng,
    raw,
    '<= 1.2x raw node:http request',
    (v, b) => b > 0 && v / b <= 1.2,
    `raw node:http request + full read of the same ${format} SSE stream, each event's JSON parsed (same request bytes and pool settings, ${TEXT.length} text deltas, ${rawBytes} B)`,
  );
  process.stderr.write(`llm ${format}: engine runs ${eng.map(round).join(' ')} | raw runs ${raw.map(round).join(' ')}\n`);
  agentPool.destroy();
  return f;
}

const suite: Suite = {
  name: 'llm',
  async run() {
    const fake = await FakeProvider.start({ fallback: { text: TEXT, usage: { input: 20, output: 40 } } });
    try {
      return [await measure('openai', fake), await measure('anthropic', fake)];
    } finally {
      await fake.close();
    }
  },
};
export default suite;
