// The one redaction function: configured keys, env secrets, bearer tokens and authorization headers.
import { describe, expect, it } from 'vitest';
import { makeRedactor, REDACTED } from '../../src/runtime/redact.js';

const KEY = 'sk-known-key-1234567890';

describe('redaction', () => {
  it('configured keys and values of secret-named variables are replaced wherever they appear', () => {
    const r = makeRedactor([KEY, 'short'], { MY_SERVICE_TOKEN: 'tok-abcdefgh-123', HOME: '/home/someone-long' });
    expect(r.text(`key=${KEY}; again ${KEY}; env tok-abcdefgh-123`)).toBe(`key=${REDACTED}; again ${REDACTED}; env ${REDACTED}`);
    expect(r.text('home is /home/someone-long, short stays')).toBe('home is /home/someone-long, short stays');
  });

  it('bearer tokens and authorization headers in text and in header objects', () => {
    const r = makeRedactor([]);
    expect(r.text('curl -H "Authorization: Bearer abc.def-123"')).toBe(`curl -H "Authorization: ${REDACTED}"`);
    expect(r.text('sent bearer xyz98765 to the server')).toBe(`sent Bearer ${REDACTED} to the server`);
    expect(r.text('Bearer tokens and Bearer authentication are prose')).toBe('Bearer tokens and Bearer authentication are prose');
    expect(r.value({ headers: { Authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': 'raw-key', accept: 'json' } })).toEqual({
      headers: { Authorization: REDACTED, 'x-api-key': REDACTED, accept: 'json' },
    });
  });

  it('deep values are copied only where something changed; numbers and clean objects stay as they are', () => {
    const r = makeRedactor([KEY]);
    const clean = { a: ['x', { b: 1 }], usage: { inputTokens: 3 } };
    expect(r.value(clean)).toBe(clean);
    const dirty = { keep: clean, list: ['ok', `echo ${KEY}`] };
    const out = r.value(dirty);
    expect(out).toEqual({ keep: clean, list: ['ok', `echo ${REDACTED}`] });
    expect(out.keep).toBe(clean);
    expect(dirty.list[1]).toContain(KEY);
  });
});
