// Node builtins that only some paths of a thread need, loaded on first use: crypto and child_process cost a worker
// ~9 ms of its boot (a store worker opening one rollout needs neither; an agent spawns nothing before its first tool).
import type * as Crypto from 'node:crypto';
import type * as ChildProcess from 'node:child_process';
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

export function nodeCrypto(): typeof Crypto {
  return load('node:crypto') as typeof Crypto;
}

export function nodeChildProcess(): typeof ChildProcess {
  return load('node:child_process') as typeof ChildProcess;
}
