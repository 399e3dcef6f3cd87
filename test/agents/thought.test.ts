import { describe, expect, it } from 'vitest';
import { parseThought, parsePlanItem, stripThought } from '../../src/actors/agents/thought.js';

const block = (body: string): string => `<thought>\n${body}\n</thought>\nok`;

describe('thought block contract (§10)', () => {
  it('parses the fixed lower-case keys and plan markers', () => {
    const r = parseThought(block('goal: ship it\nstep: read\nreason: need facts\nplan:\n[x] a\n[>] b\n[ ] c'));
    expect(r.kind).toBe('ok');
    if (r.kind !== 'ok') return;
    expect(r.thought).toEqual({ goal: 'ship it', step: 'read', reason: 'need facts', plan: [{ mark: 'done', text: 'a' }, { mark: 'current', text: 'b' }, { mark: 'todo', text: 'c' }] });
  });

  it('normalises aliases and case of keys', () => {
    const r = parseThought(block('Current Goal: g\nReasoning: r\nnext step: s\nPlans:\n- one'));
    expect(r.kind === 'ok' && r.thought).toMatchObject({ goal: 'g', reason: 'r', step: 's', plan: [{ mark: 'todo', text: 'one' }] });
  });

  it('tolerates X, - and 1. markers', () => {
    expect(parsePlanItem('[X] done')).toEqual({ mark: 'done', text: 'done' });
    expect(parsePlanItem('X done')).toEqual({ mark: 'done', text: 'done' });
    expect(parsePlanItem('- todo')).toEqual({ mark: 'todo', text: 'todo' });
    expect(parsePlanItem('1. first')).toEqual({ mark: 'todo', text: 'first' });
    expect(parsePlanItem('- [>] now')).toEqual({ mark: 'current', text: 'now' });
  });

  it('requires goal and reason', () => {
    expect(parseThought(block('goal: g\nstep: s'))).toMatchObject({ kind: 'invalid', error: 'reason is required' });
    expect(parseThought(block('reason: r'))).toMatchObject({ kind: 'invalid', error: 'goal is required' });
  });

  it('allows at most one [>]', () => {
    expect(parseThought(block('goal: g\nreason: r\nplan:\n[>] a\n[>] b'))).toMatchObject({ kind: 'invalid' });
  });

  it('rejects unpaired delimiters and more than one block', () => {
    expect(parseThought('<thought>\ngoal: g\nreason: r\n')).toMatchObject({ kind: 'invalid' });
    const two = `${block('goal: g\nreason: r')}\n${block('goal: g\nreason: r')}`;
    expect(parseThought(two)).toMatchObject({ kind: 'invalid', error: expect.stringContaining('exactly one') as string });
  });

  it('reports absence distinctly from a failure', () => {
    expect(parseThought('just text')).toEqual({ kind: 'absent' });
  });

  it('rejects unknown lines instead of silently dropping them', () => {
    expect(parseThought(block('goal: g\nreason: r\nwhatever this is'))).toMatchObject({ kind: 'invalid' });
  });

  it('stripThought leaves the answer', () => {
    expect(stripThought(block('goal: g\nreason: r'))).toBe('ok');
  });
});
