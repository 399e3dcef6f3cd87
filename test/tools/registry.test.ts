// Pins the two-way registry validation: the built-ins are healthy and every rule has a fixture that fires it.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BUILTIN_TOOLS, assertRegistry, validateRegistry } from '../../src/actors/tools/registry.js';
import { listDescriptionNames } from '../../src/actors/tools/describe.js';
import { defineTool, ok, readTags, writeTags } from '../../src/actors/tools/define.js';
import type { CapabilityTags, ToolDeclaration } from '../../src/actors/tools/types.js';

const fixture = (over: { name?: string; description?: string; schema?: z.ZodType; tags?: Partial<CapabilityTags> } = {}): ToolDeclaration =>
  defineTool({
    name: over.name ?? 'fixture_tool',
    description: over.description ?? 'A fixture.',
    schema: over.schema ?? z.object({ path: z.string(), command: z.string(), flag: z.boolean() }),
    tags: { ...readTags({ pathParams: ['path'], brief: () => 'x' }), ...over.tags },
    execute: () => Promise.resolve(ok('done')),
  }) as ToolDeclaration;

describe('registry', () => {
  it('built-in registry is valid both ways (every .md has an executor, every executor its .md)', () => {
    expect(validateRegistry(BUILTIN_TOOLS, listDescriptionNames())).toEqual([]);
    expect(() => assertRegistry()).not.toThrow();
    expect(BUILTIN_TOOLS.map((d) => d.name).sort()).toEqual(listDescriptionNames());
  });

  const cases: [string, ToolDeclaration[], string[]][] = [
    ['name-format', [fixture({ name: 'Bad-Name' })], ['Bad-Name']],
    ['duplicate-name', [fixture(), fixture()], ['fixture_tool']],
    ['name-format', [fixture({ name: 'x'.repeat(65) })], ['x'.repeat(65)]],
    ['missing-description', [fixture({ description: '' })], ['fixture_tool']],
    ['not-executable', [{ ...fixture(), execute: undefined } as unknown as ToolDeclaration], ['fixture_tool']],
    ['schema-not-object', [fixture({ schema: z.string(), tags: { pathParams: [] } })], ['fixture_tool']],
    ['unknown-param', [fixture({ tags: { pathParams: ['nope'] } })], ['fixture_tool']],
    ['unknown-param', [fixture({ tags: { commandParams: ['cmd'] } })], ['fixture_tool']],
    ['unknown-param', [fixture({ tags: { dangerFlag: 'danger' } })], ['fixture_tool']],
    ['read-effect-mutates', [fixture({ tags: { mutates: true, serial: true } })], ['fixture_tool']],
    ['writer-not-mutating', [fixture({ tags: { ...writeTags({ pathParams: ['path'], brief: () => '' }), mutates: false } })], ['fixture_tool']],
    ['mutating-not-serial', [fixture({ tags: { ...writeTags({ pathParams: ['path'], brief: () => '' }), serial: false } })], ['fixture_tool']],
    // a writer that is not a delegation cannot claim its own worktree to skip the rule above
    ['mutating-not-serial', [fixture({ tags: { ...writeTags({ pathParams: ['path'], brief: () => '' }), serial: false, isolatedWriter: true } })], ['fixture_tool']],
    ['isolated-not-write-delegation', [fixture({ tags: { isolatedWriter: true } })], ['fixture_tool']],
    ['auth-without-target', [fixture({ tags: { needsAuth: true, pathParams: [] } })], ['fixture_tool']],
    ['unguarded-writer', [fixture({ tags: { ...writeTags({ pathParams: ['path'], brief: () => '' }), needsAuth: false } })], ['fixture_tool']],
    ['cold-mutating', [fixture({ tags: { ...writeTags({ pathParams: ['path'], brief: () => '' }), cold: true } })], ['fixture_tool']],
    ['delegate-without-audience', [fixture({ tags: { effect: 'delegate', pathParams: [] } })], ['fixture_tool']],
    ['delegate-without-target', [fixture({ tags: { effect: 'delegate', pathParams: [], audience: ['director'] } })], ['fixture_tool']],
    ['schema-unrenderable', [fixture({ schema: z.object({ path: z.string(), when: z.date() }) })], ['fixture_tool']],
    ['brief-throws', [fixture({ tags: { brief: () => { throw new Error('boom'); } } })], ['fixture_tool']],
    ['brief-not-string', [fixture({ tags: { brief: (() => 42) as unknown as CapabilityTags['brief'] } })], ['fixture_tool']],
    ['executor-without-declaration', [fixture()], []],
    ['declaration-without-executor', [], ['orphan_tool']],
  ];
  it.each(cases)('rule %s has a fixture that fires it', (rule, decls, declared) => {
    const problems = validateRegistry(decls, declared);
    expect(problems.map((p) => p.rule)).toContain(rule);
  });

  it('the healthy fixture fires no rule (the cases above differ from it in one thing only)', () => {
    expect(validateRegistry([fixture()], ['fixture_tool'])).toEqual([]);
  });

  it('assertRegistry throws naming the rule and the tool', () => {
    expect(() => assertRegistry([fixture({ name: 'Bad' })], ['Bad'])).toThrow(/name-format: Bad/);
  });
});
