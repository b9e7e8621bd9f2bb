import { describe, expect, it } from 'vitest';
import { pickSessionEnvironment, terminalSession } from './session-environment.js';

describe('the session environment a client sends and a host keeps', () => {
  it('picks TERM, COLORTERM and the locale from a process environment, nothing else', () => {
    const env = { TERM: 'tmux-256color', COLORTERM: 'truecolor', LANG: 'de_DE.UTF-8', LANGUAGE: 'de:en', LC_TIME: 'en_GB.UTF-8', PATH: '/bin', HOME: '/root', SSH_AUTH_SOCK: '/tmp/x', LC_BAD: 'a b' };
    expect(pickSessionEnvironment(env)).toEqual({ TERM: 'tmux-256color', COLORTERM: 'truecolor', LANG: 'de_DE.UTF-8', LANGUAGE: 'de:en', LC_TIME: 'en_GB.UTF-8' });
  });

  it('keeps only what the table accepts, and a TERM only when allowed and known', () => {
    const known = (term: string) => term !== 'foot';
    const session = terminalSession({ TERM: 'screen', LANG: 'C.UTF-8', LC_ALL: '$(rm -rf ~)', COLORTERM: 'yes-please', LD_PRELOAD: '/tmp/evil.so', __proto__x: 'x' }, known);
    expect(session).toEqual({ term: 'screen', env: { LANG: 'C.UTF-8' } });
    expect(terminalSession({ TERM: 'foot' }, known).term, 'allowed, but no terminfo here').toBe('xterm-256color');
    expect(terminalSession({ TERM: '../../etc/passwd' }, known).term).toBe('xterm-256color');
    expect(terminalSession(undefined, known)).toEqual({ term: 'xterm-256color', env: {} });
  });
});
