import { describe, expect, it } from 'vitest';
import { describeKey, EscapeKeyReader, type EscapeKeyOptions, parseDetachKey } from './attach-escape-keys.js';

/** `input` through one reader, in chunks cut at `cuts`: what the remote got, whether it detached, whether ~? asked for help. */
function readAll(input: string, cuts: readonly number[] = [], options?: EscapeKeyOptions): { toRemote: string; detach: boolean; help?: true } {
  const reader = new EscapeKeyReader(options);
  const bounds = [0, ...cuts, input.length];
  let toRemote = '';
  let help = false;
  const result = (detach: boolean) => ({ toRemote, detach, ...(help ? { help: true as const } : {}) });
  for (let i = 1; i < bounds.length; i++) {
    const read = reader.read(input.slice(bounds[i - 1], bounds[i]));
    toRemote += read.toRemote;
    help ||= read.help === true;
    if (read.detach) return result(true);
  }
  return result(false);
}

/** The same reading whatever the chunk boundaries: cut at every offset, and at every pair of offsets. */
function expectSameAtEveryCut(input: string, options?: EscapeKeyOptions) {
  const whole = readAll(input, [], options);
  for (let a = 0; a <= input.length; a++) {
    for (let b = a; b <= input.length; b++) expect(readAll(input, [a, b], options), `cut at ${a} and ${b}`).toEqual(whole);
  }
  return whole;
}

const PASTE = (text: string) => `\x1b[200~${text}\x1b[201~`;

describe('EscapeKeyReader: attach commands typed like ssh, every other key for the remote', () => {
  it('detaches on Ctrl-], passing on what came before it', () => {
    expect(expectSameAtEveryCut('ls\x1dpwd')).toEqual({ toRemote: 'ls', detach: true });
  });

  it('passes a paste containing the detach key whole, and detaches on the key after the paste', () => {
    const paste = PASTE('a\x1db\r~.c\x1d');
    expect(expectSameAtEveryCut(`${paste}x`)).toEqual({ toRemote: `${paste}x`, detach: false });
    expect(expectSameAtEveryCut(`${paste}\x1d`)).toEqual({ toRemote: paste, detach: true });
  });

  it('reads ~. after Enter, and at the very start, as detach; ~~ sends one ~; ~ then anything else sends both', () => {
    expect(expectSameAtEveryCut('echo hi\r~.')).toEqual({ toRemote: 'echo hi\r', detach: true });
    expect(expectSameAtEveryCut('~.')).toEqual({ toRemote: '', detach: true });
    expect(expectSameAtEveryCut('\r~~.\r~x')).toEqual({ toRemote: '\r~.\r~x', detach: false });
    expect(expectSameAtEveryCut('a~.b')).toEqual({ toRemote: 'a~.b', detach: false });
  });

  it('asks for the list of escapes on ~? after Enter, sending neither character; elsewhere ~? is text', () => {
    expect(expectSameAtEveryCut('ls\r~?')).toEqual({ toRemote: 'ls\r', detach: false, help: true });
    expect(expectSameAtEveryCut('ls\r~?~.')).toEqual({ toRemote: 'ls\r', detach: true, help: true });
    expect(expectSameAtEveryCut('a~?')).toEqual({ toRemote: 'a~?', detach: false });
    expect(new EscapeKeyReader().describe()).toBe('^] detach, ~. detach, ~~ send ~, ~? this list (after Enter)');
    expect(new EscapeKeyReader({ detachKey: undefined, tildeEscape: false }).describe()).toBe('none: every key goes to the remote');
  });

  it("holds a ~ at a line's start until the next key says what it is, and nothing else", () => {
    const reader = new EscapeKeyReader();
    expect(reader.read('\r~')).toEqual({ toRemote: '\r', detach: false });
    expect(reader.read('\x1b')).toEqual({ toRemote: '~\x1b', detach: false }); // a lone Escape is never held
  });

  it('takes another control key, or none: then Ctrl-] (vim following a help link) reaches the remote', () => {
    expect(expectSameAtEveryCut('a\x1db\x01c', { detachKey: '\x01' })).toEqual({ toRemote: 'a\x1db', detach: true });
    expect(expectSameAtEveryCut('a\x1db\r~.', { detachKey: undefined, tildeEscape: false })).toEqual({ toRemote: 'a\x1db\r~.', detach: false });
    expect(expectSameAtEveryCut('a\x1db\r~.', { detachKey: undefined })).toEqual({ toRemote: 'a\x1db\r', detach: true });
  });
});

describe('parseDetachKey', () => {
  it('reads caret notation, a raw control character and none; refuses printable keys, Escape and Enter', () => {
    expect(parseDetachKey('^]')).toEqual({ key: '\x1d' });
    expect(parseDetachKey('^a')).toEqual({ key: '\x01' });
    expect(parseDetachKey('^?')).toEqual({ key: '\x7f' });
    expect(parseDetachKey('\x02')).toEqual({ key: '\x02' });
    expect(parseDetachKey('none')).toEqual({ key: undefined });
    for (const bad of ['x', '~', '^[', '^M', 'ab', '']) expect(parseDetachKey(bad), bad).toHaveProperty('error');
    expect(describeKey('\x1d')).toBe('^]');
  });
});
