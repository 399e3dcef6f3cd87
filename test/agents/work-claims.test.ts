import { describe, expect, it } from 'vitest';
import { claimsWork } from '../../src/actors/agents/work-claims.js';

describe('claimsWork: which Director answers earn the un-delegated reminder', () => {
  it.each([
    "I've updated src/app.ts to fix the bug.",
    'I have created the file and ran the tests.',
    'I fixed it.',
    "I'll check the repository for that function.",
    'Let me look at the config first.',
    "I'm running the tests now.",
    'The README has been updated with the new flag.',
    'Done. The server now listens on 8080.',
    "<thought>plan</thought>\nI'll now run npm test.",
  ])('claims or promises work: %s', (text) => {
    expect(claimsWork(text)).toBe(true);
  });

  it.each([
    'Hello! How can I help you today?',
    'Hi there. What would you like to work on?',
    'A closure is a function that keeps the variables of the scope it was defined in.',
    '2 + 2 is 4.',
    'I can help with code changes, reviews and questions about this repository.',
    'Use `git rebase -i HEAD~3` to squash the last three commits.',
    'Sure:\n```bash\nI fixed\n```\nis just text in a block.',
  ])('claims nothing: %s', (text) => {
    expect(claimsWork(text)).toBe(false);
  });
});
