// Node builtins that only some paths of a thread need, loaded on first use: crypto and child_process cost a worker
// ~9 ms of its boot (a store worker opening one rollout needs neither; an agent spawns nothing before its first tool);
// http and https ~4 ms each (a worker loads the one its provider's URL names).
import type * as Crypto from 'node:crypto';
import type * as ChildProcess from 'node:child_process';
import type * as Http from 'node:http';
import type * as Https from 'node:https';
import type * as Zlib from 'node:zlib';
import { createRequire } from 'node:module';

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
