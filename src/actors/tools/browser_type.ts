// browser_type: text into a numbered field (trusted input), or the option of a select; Enter after when submit.
import { z } from 'zod';
import { browserTags, refParam, timeoutParam, withBrowser } from './browser-tool.js';
import { briefArg, defineTool, ok } from './define.js';

const schema = z.object({
  ref: refParam,
  text: z.string().describe('What to type; for a select, the option to choose (its text or value).'),
  submit: z.boolean().default(false).describe('Press Enter after typing (submits most forms).'),
  clear: z.boolean().default(true).describe('Replace what the field holds (false: add to it).'),
  timeout_seconds: timeoutParam,
});

export default defineTool({
  name: 'browser_type',
  schema,
  tags: browserTags(true, (a) => `[${String(a.ref ?? '?')}] ${briefArg(a, 'text', 60)}`),
  execute: (args, ctx) =>
    withBrowser(ctx, args.timeout_seconds, async (browser, o) => ok(await browser.type(args.ref, args.text, { submit: args.submit, clear: args.clear }, o))),
});
