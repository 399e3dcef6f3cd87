// Node builtins that only some paths of a thread need, loaded on first use: crypto and child_process cost a worker
// ~9 ms of its boot (a store worker opening one rollout needs neither; an agent spawns nothing before its first tool);
// http and https ~4 ms each (a worker loads the one its provider's URL names).
import type * as Crypto from 'node:crypto';
import type * as ChildProcess from 'node:child_process';
import type * as Http from 'node:http';
import type * as Https from 'node:https';
import type * as Zlib from 'node:zlib';
import { createRequire } from 'node:module';
import { closeSync, openSync, readSync } from 'node:fs';

const load = createRequire(import.meta.url);

export function nodeCrypto(): typeof Crypto {
  return load('node:crypto') as typeof Crypto;
}

export function nodeChildProcess(): typeof ChildProcess {
  return load('node:child_process') as typeof ChildProcess;
}

/** The model transport's (src/actors/llm/transport): an agent loads only the scheme its provider speaks. */
export function nodeHttp(): typeof Http {
  return load('node:http') as typeof Http;
}

export function nodeHttps(): typeof Https {
  return load('node:https') as typeof Https;
}

/** A compressed answer only (the transport asks for none). */
export function nodeZlib(): typeof Zlib {
  return load('node:zlib') as typeof Zlib;
}

// Random ids without node:crypto: its load is ~3 ms of a worker's CPU on the Director's path to its first request
// (a session id and each RPC's request id). The kernel's CSPRNG through /dev/urandom is what node:crypto draws from
// too, so the ids stay as unguessable (a help request's id reaches clients); node:crypto where there is no device.
let pool: Buffer | undefined;
let used = 0;
const POOL = 512;

function random16(): Buffer {
  if (pool === undefined || used + 16 > POOL) {
    pool = Buffer.allocUnsafe(POOL);
    used = 0;
    try {
      const fd = openSync('/dev/urandom', 'r');
      try {
        for (let n = 0; n < POOL; ) n += readSync(fd, pool, n, POOL - n, null);
      } finally {
        closeSync(fd);
      }
    } catch {
      nodeCrypto().randomFillSync(pool);
    }
  }
  const b = pool.subarray(used, used + 16);
  used += 16;
  return b;
}

/** A random (version 4) UUID, as `crypto.randomUUID()` makes. */
export function randomUuid(): string {
  const b = Buffer.from(random16());
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
