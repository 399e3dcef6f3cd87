// Raw floor worker for bench/mcp.ts: a bare SDK client to the same stdio server, in a plain worker, answering
// plain postMessage calls. What one worker hop costs with nothing of ours in it (no runtime, RPC, hub or facade).
import { parentPort, workerData } from 'node:worker_threads';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';

const port = parentPort;
if (!port) throw new Error('run as a worker');
const { server } = workerData as { server: string };
const client = new Client({ name: 'bench-floor', version: '0' }, { capabilities: {} });
await client.connect(new StdioClientTransport({ command: process.execPath, args: [server, 'stdio'], env: getDefaultEnvironment(), stderr: 'pipe' }));
await client.listTools();
port.on('message', (m: { id: number; message: string } | { close: true }) => {
  if ('close' in m) {
    void client.close().then(() => port.close());
    return;
  }
  void client.callTool({ name: 'echo', arguments: { message: m.message } }).then((result) => port.postMessage({ id: m.id, result }));
});
port.postMessage({ ready: true });
