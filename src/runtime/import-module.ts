// import() of an ES module named at run time (a user's script file), from code that may run as a CommonJS thread
// bundle: the bundler turns every import() there into require(), which cannot load an ES module on Node 20, so
// the bundle loader (code-cache.ts, itself an ES module) lends its own import().
export const IMPORT_HOOK = Symbol.for('yagent.code-cache.import');

export function importModule(url: string): Promise<unknown> {
  const lent = (globalThis as Record<symbol, ((u: string) => Promise<unknown>) | undefined>)[IMPORT_HOOK];
  return lent ? lent(url) : import(url);
}
