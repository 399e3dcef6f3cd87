// The floor the `cli` and `agents` suites measure against: a minimal Node agent loop on the same loopback
// fake model (streamed OpenAI chat completions, one read_file tool), run as its own process.
// Usage: node bench/reference-agent.mjs <base_url> <workspace> "<prompt>"
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

const [baseUrl, workspace, prompt] = process.argv.slice(2);
const tools = [{ type: 'function', function: { name: 'read_file', description: 'Read a file in the workspace.', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } }];
const messages = [{ role: 'system', content: 'You are a coding agent. Use read_file to read files.' }, { role: 'user', content: prompt }];

/** One streamed call: the SSE frames folded into text and tool calls, as every agent loop must. */
async function call() {
  const res = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer reference', 'x-yagent-agent': 'reference' },
    body: JSON.stringify({ model: 'fake-model', messages, tools, stream: true, stream_options: { include_usage: true } }),
  });
  if (!res.ok) throw new Error(`model answered ${res.status}: ${await res.text()}`);
  let text = '';
  let buf = '';
  const calls = [];
  const decoder = new TextDecoder();
  for await (const bytes of res.body) {
    buf += decoder.decode(bytes, { stream: true });
    let end;
    while ((end = buf.indexOf('\n\n')) >= 0) {
      const frame = buf.slice(0, end);
      buf = buf.slice(end + 2);
      if (!frame.startsWith('data: ') || frame === 'data: [DONE]') continue;
      const delta = JSON.parse(frame.slice(6)).choices[0]?.delta ?? {};
      if (delta.content) text += delta.content;
      for (const tc of delta.tool_calls ?? []) {
        const c = (calls[tc.index] ??= { id: tc.id, type: 'function', function: { name: '', arguments: '' } });
        if (tc.function?.name) c.function.name = tc.function.name;
        if (tc.function?.arguments) c.function.arguments += tc.function.arguments;
      }
    }
  }
  return { text, calls };
}

for (let step = 0; step < 100; step++) {
  const { text, calls } = await call();
  messages.push(calls.length > 0 ? { role: 'assistant', content: text, tool_calls: calls } : { role: 'assistant', content: text });
  if (calls.length === 0) {
    process.stdout.write(`${text}\n`);
    break;
  }
  for (const c of calls) {
    let content;
    try {
      const { path } = JSON.parse(c.function.arguments);
      content = await readFile(join(workspace, path), 'utf8');
    } catch (err) {
      content = `error: ${err.message}`;
    }
    messages.push({ role: 'tool', tool_call_id: c.id, content });
  }
}
