// Suite `llm`: engine overhead per streamed call against a raw fetch of the same stream (zero-latency fake).
import { figure, ms, repeat, type Figure, type Suite } from './lib.js';
import { FakeProvider } from '../src/actors/llm/fake/server.js';
import { buildAgentEngine } from '../src/actors/llm/build.js';
import { AGENT_HEADER } from '../src/actors/llm/fake/script.js';
import { parseConfigText } from '../src/runtime/config/index.js';
import type { ChatMessage } from '../src/runtime/protocol/index.js';

const CALLS = 150;
const RUNS = 7;
const TEXT = Array.from({ length: 40 }, (_, i) => `token${i} `);
const messages: ChatMessage[] = [
  { role: 'system', content: 'You are a benchmark.' },
  { role: 'user', content: 'Say something.' },
];

async function measure(format: 'openai' | 'anthropic', fake: FakeProvider): Promise<Figure> {
  const base = format === 'openai' ? fake.openaiBaseUrl : fake.anthropicBaseUrl;
  const cfg = parseConfigText(
    `[global.llm]\nuse_provider = "p"\n[global.llm.providers.p]\nmodel = "bench"\napi_base_url = "${base}"\napi_key = "k"\napi_format = "${format}"\n[routing]\nmode = "fixed"\n`,
    'bench.toml',
    {},
  );
  const engine = buildAgentEngine(cfg, 'bench', { publish: () => undefined });
  const signal = new AbortController().signal;
  let sink = 0;
  const viaEngine = async (): Promise<number> => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) {
      const r = await engine.call({ messages, tools: [], signal, agent: 'bench', onTextDelta: (t) => (sink += t.length) });
      sink += r.text.length;
    }
    return ms(t0) / CALLS;
  };
  const url = format === 'openai' ? `${base}/chat/completions` : `${base}/v1/messages`;
  const body =
    format === 'openai'
      ? JSON.stringify({ model: 'bench', messages, stream: true, stream_options: { include_usage: true } })
      : JSON.stringify({ model: 'bench', max_tokens: 8192, messages: [{ role: 'user', content: [{ type: 'text', text: 'Say something.' }] }], system: 'You are a benchmark.', stream: true });
  const rawFetch = async (): Promise<number> => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', [AGENT_HEADER]: 'bench' }, body, signal });
      sink += (await res.text()).length;
    }
    return ms(t0) / CALLS;
  };
  // interleave so drift on a noisy machine hits both sides alike
  const eng: number[] = [];
  const raw: number[] = [];
  await viaEngine();
  await rawFetch();
  for (let i = 0; i < RUNS; i++) {
    raw.push(...(await repeat(1, rawFetch, 0)));
    eng.push(...(await repeat(1, viaEngine, 0)));
  }
  if (sink < 0) process.stderr.write('unreachable\n');
  const rawMedian = [...raw].sort((a, b) => a - b)[Math.floor(raw.length / 2)] ?? Number.NaN;
  return figure(
    `${format}_streamed_call_overhead`,
    'ms/call',
    eng,
    '<= 1.2x raw fetch',
    (v, b) => b !== undefined && v / b <= 1.2,
    { label: `raw fetch + read of the same ${format} SSE stream (${TEXT.length} text deltas)`, value: rawMedian },
  );
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
