// browser_open: loads a URL in the page (http, https, or a file: URL judged like read_file's paths by the guard).
import { z } from 'zod';
import { browserTags, timeoutParam, withBrowser } from './browser-tool.js';
import { briefArg, defineTool, ok } from './define.js';
import { fileUrlPath } from './path-resolve.js';

const schema = z.object({
  url: z.string().min(1).describe('Full URL: https://…, http://localhost:3000/…, or file:///absolute/path.html.'),
  timeout_seconds: timeoutParam,
});

export default defineTool({
  name: 'browser_open',
  schema,
  tags: browserTags(true, (a) => briefArg(a, 'url'), { urlParams: ['url'] }),
  execute: (args, ctx) =>
    withBrowser(ctx, args.timeout_seconds, async (browser, o) => {
      // the guard already let this file through (inside the workspace, or approved): the browser may load it
      const real = fileUrlPath(args.url);
      if (real !== null) browser.approveFile(real);
      return ok(await browser.open(args.url.trim(), o));
    }),
});
