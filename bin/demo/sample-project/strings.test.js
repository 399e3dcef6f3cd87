// Tests of strings.js, run by `node test.js`.
import assert from 'node:assert/strict';
import { capitalize, words } from './strings.js';

export const tests = {
  'capitalize upper-cases the first letter': () => assert.equal(capitalize('yagent'), 'Yagent'),
  'words splits on any whitespace': () => assert.deepEqual(words(' a  b\tc '), ['a', 'b', 'c']),
};
