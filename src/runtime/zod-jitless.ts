// Imported by every thread before its first parse (the CLI host session, each actor worker): zod's JIT compiles a
// `new Function` fast path for each object schema on its first parse; our threads parse a few hundred messages each, so the
// generated code costs more than it saves: ~3 MB less peak RSS per run (`npm run bench -- cli`, peak_rss).
import { z } from 'zod';

z.config({ jitless: true });
