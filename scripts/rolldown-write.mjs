// The one rolldown call of the build's post-steps (vendor-packages.mjs, bundle-entries.mjs): node platform,
// ESM out, the bundle closed even when the write fails.
import { rolldown } from 'rolldown';

export async function writeBundle(input, output) {
  const bundle = await rolldown({ platform: 'node', logLevel: 'warn', ...input });
  try {
    await bundle.write({ format: 'esm', ...output });
  } finally {
    await bundle.close();
  }
}
