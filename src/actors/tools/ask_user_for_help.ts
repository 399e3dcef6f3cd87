// ask_user_for_help: one question to the user; in a run with nobody to answer, a result telling the model to decide.
import { z } from 'zod';
import { briefArg, defineTool, fail, ok } from './define.js';

const schema = z.object({ question: z.string().min(1).describe('One clear question, with the options you see.') });

export default defineTool({
  name: 'ask_user_for_help',
  schema,
  tags: {
    effect: 'interact',
    mutates: false,
    serial: true,
    needsAuth: false,
    pathParams: [],
    truncation: 'head',
    display: 'text',
    brief: (a) => briefArg(a, 'question'),
  },
  async execute(args, ctx) {
    try {
      return ok(await ctx.askUser(args.question));
    } catch (e) {
      if (ctx.signal.aborted) throw e;
      return fail('no_user', `Nobody can answer right now (${e instanceof Error ? e.message : String(e)}): decide yourself and state the assumption.`);
    }
  },
});
