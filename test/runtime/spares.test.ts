// Start-up latency rules of the spare pool: background boot, prestart adoption, deferred refill, own preloads.
import { describe, expect, it } from 'vitest';
import { prestart, prestartedCount, releasePrestarted } from '../../src/runtime/spare-boot.js';
import { FIXTURE, SERVICE, startRuntime } from './helpers.js';

const SLOW = 'src/runtime/testing/fixture-slow-start.js';

describe('spare pool', () => {
  it('start() resolves while its spares are still booting', async () => {
    const t0 = Date.now();
    // a spare that preloads a 10 s module: start() must not wait for it
    const { rt } = await startRuntime({ preload: [SLOW], spares: 1 });
    expect(Date.now() - t0).toBeLessThan(10_000); // waiting for the spare would take the module's 10 s load at least
    expect(rt.spareCount()).toBe(1);
    await rt.shutdown(2000);
  });

  it('a prestarted spare is adopted by the first runtime whose pool has the same preload', async () => {
    prestart({ preload: [], count: 1 });
    prestart({ preload: ['node:path'], count: 1 });
    expect(prestartedCount()).toBe(2);
    const { rt } = await startRuntime({ preload: [], spares: 1 });
    expect(prestartedCount()).toBe(1); // the other preload is not interchangeable
    expect(rt.spareCount()).toBe(1);
    const task = await rt.startTask('adopted');
    expect(await task.spawn({ name: 'echo', module: FIXTURE, input: { mode: 'echo', value: 1 } })).toMatchObject({ value: 1 });
    await rt.shutdown(2000);
    expect(prestartedCount()).toBe(0); // shutdown releases what nobody adopted
    await releasePrestarted();
  });

  it('with deferRefill a start boots no replacement spare until warm(), then refills as usual', async () => {
    const { rt } = await startRuntime({ spares: 1, deferRefill: true });
    const task = await rt.startTask('deferred');
    await task.spawn({ name: 'first', module: FIXTURE, input: { mode: 'echo', value: 1 } });
    expect(rt.spareCount()).toBe(0);
    await rt.warm();
    expect(rt.spareCount()).toBe(1);
    await task.spawn({ name: 'second', module: FIXTURE, input: { mode: 'echo', value: 2 } });
    expect(rt.spareCount()).toBe(1);
    await rt.shutdown(2000);
  });

  it('a service with its own preload starts on a fresh worker and leaves the spare pool alone', async () => {
    const { rt } = await startRuntime({ spares: 1, deferRefill: true });
    await rt.startService({ name: 'light', module: SERVICE, input: { label: 'light' }, preload: ['node:path'] });
    expect(rt.spareCount()).toBe(1);
    expect(rt.liveActors()).toContain('light');
    await rt.shutdown(2000);
  });

  it('connect to a service that is still starting waits until it serves', async () => {
    const { rt } = await startRuntime({ spares: 0 });
    const starting = rt.startService({ name: 'late', module: SERVICE, input: { label: 'late' } });
    const svc = rt.connect<{ echo(v: unknown): { v: unknown; label: string } }>('late');
    expect(await svc.echo('hi')).toMatchObject({ v: 'hi', label: 'late' });
    await starting;
    await rt.shutdown(2000);
  });

  it('a service on demand starts at its first connect, once; one started before that is not started again', async () => {
    const { rt } = await startRuntime({ spares: 0 });
    let starts = 0;
    const start = (name: string) => () => {
      starts++;
      void rt.tasks.go(`start-${name}`, () => rt.startService({ name, module: SERVICE, input: { label: name } }));
    };
    rt.onDemand('lazy', start('lazy'));
    expect(starts).toBe(0);
    expect(rt.liveActors()).not.toContain('lazy');
    const svc = rt.connect<{ echo(v: unknown): { v: unknown; label: string } }>('lazy');
    expect(await svc.echo('hi')).toMatchObject({ v: 'hi', label: 'lazy' });
    expect(await rt.connect<{ echo(v: unknown): { v: unknown } }>('lazy').echo('again')).toMatchObject({ v: 'again' });
    expect(starts).toBe(1);
    // started before its first connect (the CLI's warm-up for a workspace with code): the connect just uses it
    rt.onDemand('eager', start('eager'));
    await rt.startService({ name: 'eager', module: SERVICE, input: { label: 'eager' } });
    expect(await rt.connect<{ echo(v: unknown): { v: unknown } }>('eager').echo(1)).toMatchObject({ v: 1 });
    expect(starts).toBe(1);
    await rt.shutdown(2000);
  });
});
