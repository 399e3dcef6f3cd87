// The control API's live-task routes: messages typed while a task runs, taking back what its Director did not read,
// the model picker's list and a running task's model switch.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { Host } from '../host/types.js';
import { HttpError, readJson, sendJson } from './http-util.js';

const Queue = z.object({ task_id: z.string().min(1), text: z.string().min(1) });
const Take = z.object({ task_id: z.string().min(1) });
const Switch = z.object({ task_id: z.string().min(1), provider: z.string().min(1).nullable(), model: z.string().min(1).optional() });

/** True when the route was one of these (answered); false leaves it to the caller. */
export async function liveRoute(host: Host, key: string, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  switch (key) {
    case 'GET /api/models':
      sendJson(res, 200, { providers: await host.models() });
      return true;
    case 'POST /api/queue_message': {
      const body = await readJson(req, Queue);
      if (!host.status(body.task_id)) throw new HttpError(404, `no task "${body.task_id}" in this supervisor`);
      const queued = await host.queueMessage(body.task_id, body.text);
      sendJson(res, queued ? 202 : 409, { task_id: body.task_id, queued });
      return true;
    }
    case 'POST /api/take_queued': {
      const body = await readJson(req, Take);
      sendJson(res, 200, { task_id: body.task_id, messages: await host.takeQueued(body.task_id) });
      return true;
    }
    case 'POST /api/switch_model': {
      const body = await readJson(req, Switch);
      if (!host.status(body.task_id)) throw new HttpError(404, `no task "${body.task_id}" in this supervisor`);
      const refused = await host.switchModel(body.task_id, body.provider, body.model);
      sendJson(res, refused === null ? 200 : 409, { task_id: body.task_id, ok: refused === null, ...(refused !== null ? { error: refused } : {}) });
      return true;
    }
    default:
      return false;
  }
}
