// Worker for the comlink-vs-rpc.ts figure (bench/runtime-rpc.ts): serves the same target on two ports.
import { workerData, type MessagePort } from 'node:worker_threads';
import { expose } from 'comlink';
import { serveRpc } from '../src/runtime/rpc.js';
import { portEndpoint } from './runtime-rpc.js';

const { rpc, link } = workerData as { rpc: MessagePort; link: MessagePort };
/** A store-API-shaped call: a record in, a small receipt out. */
const target = { append: (taskId: string, record: { seq: number }) => ({ taskId, seq: record.seq, ok: true }) };
serveRpc(rpc, target);
expose(target, portEndpoint(link));
