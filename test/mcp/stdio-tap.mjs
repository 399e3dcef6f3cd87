// A transparent stdio relay in front of a real MCP server (test fixture): logs every client → server message
// to LOG (one JSON line each) and can reorder messages to pin the timings the hub must survive.
//   node stdio-tap.mjs LOG MODE -- COMMAND ARGS...
// MODE: "log"         relay as is;
//       "early"       the first tools/list is answered before the server sees notifications/initialized (so it
//                     lacks the tools the server registers then), and that answer reaches the client only after
//                     the server's first list_changed: the change arrives before the connection is ready;
//       "late"        the same tools/list answer, but the server's list_changed notifications are held until the
//                     client sends its first tools/call: the change arrives while the connection is ready.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';

const [log, mode, sep, command, ...args] = process.argv.slice(2);
if (sep !== '--' || command === undefined) throw new Error('usage: stdio-tap.mjs LOG MODE -- COMMAND ARGS...');
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
process.on('SIGTERM', () => child.kill('SIGTERM'));

const toServer = (m) => child.stdin.write(`${JSON.stringify(m)}\n`);
const toClient = (m) => process.stdout.write(`${JSON.stringify(m)}\n`);

let listId = null; // id of the first tools/list request
let heldInitialized = null; // notifications/initialized, until the first tools/list has been answered
let heldListAnswer = null; // "early": that answer, until the first list_changed went out
let listAnswered = false;
const heldChanges = []; // "late": list_changed notifications, until the first tools/call
let called = false;

function lines(stream, onMessage) {
  let buf = '';
  stream.on('data', (chunk) => {
    buf += chunk.toString('utf8');
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i).trim();
      buf = buf.slice(i + 1);
      if (line !== '') onMessage(JSON.parse(line));
    }
  });
}

lines(process.stdin, (m) => {
  appendFileSync(log, `${JSON.stringify(m)}\n`);
  if (mode !== 'log' && m.method === 'notifications/initialized' && !listAnswered) {
    heldInitialized = m;
    return;
  }
  if (m.method === 'tools/list' && listId === null) listId = m.id;
  if (m.method === 'tools/call' && !called) {
    called = true;
    for (const n of heldChanges.splice(0)) toClient(n);
  }
  toServer(m);
});

lines(child.stdout, (m) => {
  if (mode !== 'log' && listId !== null && m.id === listId && !listAnswered) {
    listAnswered = true;
    if (mode === 'early') heldListAnswer = m;
    else toClient(m);
    if (heldInitialized !== null) toServer(heldInitialized);
    heldInitialized = null;
    return;
  }
  if (m.method === 'notifications/tools/list_changed') {
    if (mode === 'late' && !called) {
      heldChanges.push(m);
      return;
    }
    toClient(m);
    if (heldListAnswer !== null) toClient(heldListAnswer);
    heldListAnswer = null;
    return;
  }
  toClient(m);
});
