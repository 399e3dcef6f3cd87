import { describe, it, expect } from 'vitest';
import { z } from 'zod';
import { EventSchema, EnvelopeSchema, FromWorkerSchema, RpcMessageSchema, ToWorkerSchema, serializeError, RemoteError, CRITICAL_EVENT_TYPES, STOP_REASONS } from '../src/runtime/protocol/index.js';

describe('protocol', () => {
  it('the message and event unions are built on their first use (each costs a thread ~10 ms of boot), and still validate', () => {
    for (const [name, schema] of Object.entries({ EventSchema, ToWorkerSchema, FromWorkerSchema, RpcMessageSchema })) expect(schema, name).toBeInstanceOf(z.ZodLazy);
    expect(ToWorkerSchema.safeParse({ type: 'pause', paused: 'no' }).success).toBe(false);
    expect(FromWorkerSchema.safeParse({ type: 'connect', requestId: 'r', target: 'store' }).success).toBe(true);
    expect(RpcMessageSchema.safeParse({ type: 'call', id: 1.5, method: 'm', args: [] }).success).toBe(false);
  });
  it('rejects an event of an unknown type', () => {
    expect(EventSchema.safeParse({ type: 'nope' }).success).toBe(false);
    expect(EventSchema.safeParse({ type: 'ai_chunk', agent: 'coding', text: 'hi' }).success).toBe(true);
  });
  it('envelope carries seq, taskId and delegationId', () => {
    const env = { seq: 1, taskId: 't', delegationId: null, source: 'director', type: 'task_paused', lane: 'critical', ts: 1, payload: { type: 'task_paused' } };
    expect(EnvelopeSchema.parse(env).seq).toBe(1);
    expect(EnvelopeSchema.safeParse({ ...env, seq: 0 }).success).toBe(false);
  });
  it('errors cross as data and keep name, code and cause', () => {
    const inner = Object.assign(new Error('disk full'), { code: 'ENOSPC' });
    const data = serializeError(new Error('write failed', { cause: inner }));
    const back = new RemoteError(structuredClone(data));
    expect(back.message).toBe('write failed');
    expect((back.cause as RemoteError).code).toBe('ENOSPC');
  });
  it('the critical lane carries approvals and the stop vocabulary is the seeds\'', () => {
    expect(CRITICAL_EVENT_TYPES.has('user_help_needed')).toBe(true);
    expect(CRITICAL_EVENT_TYPES.has('ai_chunk')).toBe(false);
    expect(STOP_REASONS).toContain('unaccounted');
  });
});
