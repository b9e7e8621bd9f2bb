import { describe, expect, it } from 'vitest';
import { plainText } from './plain-text.js';

describe('plainText', () => {
  it('keeps text drawn after a reset, however tmux spells the reset', () => {
    expect(plainText('\x1b[7m[termwire: ended by SIGINT]\n\n\x1b[0m\x1b[39m\x1b[49mplain-qx\n')).toMatch(/^plain-qx$/m);
    expect(plainText('\x1b[1;4mnotice\x1b[22;24m\nplain-qx\n')).toMatch(/^plain-qx$/m);
    expect(plainText('\x1b[38;2;1;2;3mnotice\x1b[39m\nplain-qx\n')).toMatch(/^plain-qx$/m);
  });

  it('marks text drawn while an attribute or colour set on an earlier line is still in effect', () => {
    expect(plainText('\x1b[7mnotice\nplain-qx\n')).not.toMatch(/^plain-qx$/m);
    expect(plainText('\x1b[1;4mnotice\x1b[22m\nplain-qx\n')).not.toMatch(/^plain-qx$/m);
    expect(plainText('\x1b[38;5;3mnotice\nplain-qx\n')).not.toMatch(/^plain-qx$/m);
    expect(plainText('\x1b[44mnotice\x1b[39m\nplain-qx\n')).not.toMatch(/^plain-qx$/m);
  });

  it('marks any other escape on the line', () => {
    expect(plainText('\x1b(0plain-qx\n')).not.toMatch(/^plain-qx$/m);
  });
});
