// The fake provider's request handlers: tracked while in flight, awaited by close(), errors recorded (no detached promise).
import { describe, expect, it } from 'vitest';
import { FakeProvider } from '../../src/actors/llm/fake/server.js';
import { AGENT_HEADER } from '../../src/actors/llm/engines/common.js';

function post(fake: FakeProvider, agent: string): Promise<Response> {
  return fetch(`${fake.openaiBaseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [AGENT_HEADER]: agent },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
  });
}

async function until(cond: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 20_000; // generous: real sockets on a loaded machine; the wait is for the event
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('fake provider handlers', () => {
  it('close() waits for a request handler still in flight', async () => {
    const fake = await FakeProvider.start();
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    fake.script('held', async () => {
      await held;
      return { text: 'late' };
    });
    const reply = post(fake, 'held').catch((e: unknown) => e);
    await until(() => fake.pending === 1, 'the handler to start');
    let closed = false;
    const closing = fake.close().then(() => (closed = true));
    await new Promise((r) => setImmediate(r));
    expect(closed).toBe(false);
    release();
    await closing;
    expect(fake.pending).toBe(0);
    expect(await reply).toBeInstanceOf(Error);
  });

  it('a handler that throws answers 500 and is recorded in handlerErrors', async () => {
    const fake = await FakeProvider.start();
    try {
      fake.script('boom', () => {
        throw new Error('script exploded');
      });
      const res = await post(fake, 'boom');
      expect(res.status).toBe(500);
      expect(await res.text()).toContain('script exploded');
      await until(() => fake.pending === 0, 'the handler to settle');
      expect(fake.handlerErrors.map((e) => (e as Error).message)).toEqual(['script exploded']);
    } finally {
      await fake.close();
    }
  });

  it('crash_worker asks the hook to end the asking agent; with no hook (any run on a real provider) or nothing ended: a 500', async () => {
    const fake = await FakeProvider.start();
    try {
      fake.script('director', { fault: { kind: 'crash_worker' } }, { fault: { kind: 'crash_worker' } });
      const first = await post(fake, 'director');
      expect(first.status).toBe(500);
      expect(await first.text()).toContain('crash_worker ended no worker of \\"director\\"');
      const asked: string[] = [];
      fake.onCrashWorker = (agent) => (asked.push(agent), 1);
      const ctl = new AbortController();
      const second = fetch(`${fake.openaiBaseUrl}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', [AGENT_HEADER]: 'director' }, body: '{"model":"m","messages":[]}', signal: ctl.signal }).catch((e: unknown) => e);
      await until(() => asked.length === 1, 'the crash hook called');
      expect(asked).toEqual(['director']);
      ctl.abort(); // the ended worker's request is never answered: its client going away closes it
      expect(await second).toBeInstanceOf(Error);
    } finally {
      await fake.close();
    }
  });
});
