// Key names → CDP key events (browser_press): named keys, single characters, modifier chords, the plus key.
import { describe, expect, it } from 'vitest';
import { parseKey } from '../../src/actors/browser/keys.js';

describe('browser_press key names', () => {
  it('named keys carry their code and key code; Enter and Space type their text', () => {
    expect(parseKey('Enter')).toEqual({ key: 'Enter', code: 'Enter', keyCode: 13, modifiers: 0, text: '\r' });
    expect(parseKey('tab')).toEqual({ key: 'Tab', code: 'Tab', keyCode: 9, modifiers: 0 });
    expect(parseKey('Space')).toMatchObject({ key: ' ', text: ' ' });
    expect(parseKey('ArrowDown')).toMatchObject({ code: 'ArrowDown', keyCode: 40 });
  });

  it('characters type themselves; chords with Control/Alt/Meta type nothing; Shift upper-cases a letter', () => {
    expect(parseKey('a')).toEqual({ key: 'a', code: 'KeyA', keyCode: 65, modifiers: 0, text: 'a' });
    expect(parseKey('Control+a')).toEqual({ key: 'a', code: 'KeyA', keyCode: 65, modifiers: 2 });
    expect(parseKey('Shift+a')).toMatchObject({ key: 'A', modifiers: 8, text: 'A' });
    expect(parseKey('Shift+Tab')).toMatchObject({ key: 'Tab', modifiers: 8 });
    expect(parseKey('Control+Shift+k')).toMatchObject({ modifiers: 10 });
    expect(parseKey('7')).toMatchObject({ code: 'Digit7', keyCode: 55, text: '7' });
    expect(parseKey('+')).toMatchObject({ key: '+', text: '+' });
    expect(parseKey('Control++')).toMatchObject({ key: '+', modifiers: 2 });
  });

  it('an unknown key or modifier is refused with the names that exist', () => {
    for (const bad of ['Enterr', 'Hyper+a', 'ab', '']) expect(() => parseKey(bad)).toThrow(/unknown key .*Enter, Tab/);
  });
});
