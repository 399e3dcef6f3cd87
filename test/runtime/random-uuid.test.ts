// randomUuid (lazy-builtins.ts): the ids node:crypto's randomUUID made, drawn from the kernel's CSPRNG instead.
import { describe, expect, it } from 'vitest';
import { randomUuid } from '../../src/runtime/lazy-builtins.js';

describe('randomUuid', () => {
  it('makes version 4 UUIDs, each new, across refills of its pool', () => {
    const ids = Array.from({ length: 200 }, () => randomUuid());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
