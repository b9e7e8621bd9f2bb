import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.js';
import { plainText } from '../helpers/plain-text.js';
import { waitFor } from '../helpers/wait-for.js';

// The same program run twice in tmux, side by side: once locally, once through
// `termwire serve` and `termwire attach`. The two panes are compared as tmux
// sees them (`capture-pane -p -e`: text, colours and attributes) with the
// cursor, after live use, after a re-attach, after a reconnect and after a
// resize; a repaint from the host's copy must draw exactly what the program drew.
const repo = join(import.meta.dirname, '..', '..');
const bin = join(repo, 'bin', 'termwire.js');
const socket = `termwire-fidelity-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
const has = (program: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** What a person sees in a pane: every row with its colours and attributes, where the cursor is, and the scroll region the program's next output scrolls. */
function seen(target: string): string {
  const rows = tmux('capture-pane', '-p', '-e', '-t', target);
  const cursor = tmux('display-message', '-p', '-t', target, '#{cursor_x},#{cursor_y} cursor #{?cursor_flag,shown,hidden} alt #{alternate_on} region #{scroll_region_upper}-#{scroll_region_lower}').trim();
  return `${rows}\n[${cursor}]`;
}

/** A full-screen program drawn with what a repaint must keep: colours of every kind, attributes, underline styles and colours, wide characters, a scroll region, a cursor left mid-screen, and bold reverse left set (as vim leaves it) that must not outlive it. */
const DRAW = String.raw`printf '\033[?1049h\033[H\033[2J'
printf '\033[1;31mbold red\033[0m \033[38;5;130mpalette 130\033[0m \033[38;2;10;200;30mtruecolour\033[0m \033[48;5;236mgrey back\033[0m\r\n'
printf '\033[3mitalic\033[0m \033[4munder\033[0m \033[7mreverse\033[0m \033[9mstrike\033[0m \033[2mdim\033[0m\r\n'
printf 'wide: 日本語 and emoji \360\237\230\200 \342\234\205 \342\232\241 then text\033[3;60Hat column 60\r\n'
printf '\033[10;5H\033[44;97m  a blue block  \033[0m'
printf '\033[12;5H\033[4:3mcurly\033[0m \033[4;58:5:196munderline colour\033[0m \033[4:2;58:2::200:100:0mdouble truecolour\033[0m'
printf '\033[2;22r'
printf '\033[20;1H\033[1;7m status line of the program \033[0m'
printf '\033[5;20Hcursor here\033[1;7m'
read -r line
printf '\033[r\033[?1049l'
`;

describe.skipIf(!has('tmux'))('attach draws exactly what the program drew, compared with the same program run locally in tmux', () => {
  let dir: string;
  let server: ChildProcess;
  let proxy: FaultProxy;

  /** Two 80x24 windows: the program locally, and attach (restarted when it exits, for re-attaching) to a served shell. */
  const startPair = (name: string, localCommand: string) => {
    const attach = `${process.execPath} ${bin} attach ${proxy.url} --token-file ${join(dir, 'token')} --terminal ${name} --alternate-screen`;
    for (const [session, command] of [[`${name}-local`, localCommand], [`${name}-remote`, `while :; do ${attach}; done`]] as const) {
      tmux('-f', '/dev/null', 'new-session', '-d', '-s', session, '-x', '80', '-y', '24', command);
      tmux('set-option', '-t', session, 'status', 'off');
    }
  };
  /** Detaches the remote pane's attach; its loop attaches again, and the pane is repainted from the host's copy. */
  const reattach = async (name: string) => {
    const before = proxy.connections();
    tmux('send-keys', '-t', `${name}-remote`, 'C-]');
    await waitFor(() => proxy.connections() > before, { what: 'attach to connect again', timeoutMs: 20_000 });
  };
  /** Cuts the link; attach reconnects and repaints, with "link back" on the bottom row until a fresh repaint takes it away. */
  const reconnect = async (name: string) => {
    proxy.cut();
    await waitFor(() => /\[termwire: link back after/.test(tmux('capture-pane', '-p', '-t', `${name}-remote`)), { what: 'the link-back notice after the reconnect', timeoutMs: 20_000 });
  };
  const same = async (name: string, what: string) => {
    let last = '';
    await waitFor(() => (last = seen(`${name}-remote`)) === seen(`${name}-local`), { what, timeoutMs: 20_000 }).catch(() => {
      expect(last, `${what}: the attached pane differs from the local one`).toBe(seen(`${name}-local`));
    });
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'termwire-fidelity-'));
    writeFileSync(join(dir, 'draw.sh'), DRAW);
    server = spawn(process.execPath, [bin, 'serve', '--port', '0', '--token-file', join(dir, 'token'), '--shell', 'bash', '--no-login'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PS1: '$ ' } });
    let printed = '';
    server.stdout!.on('data', (c: Buffer) => (printed += c.toString()));
    await waitFor(() => /serving terminals on ws:\S+/.test(printed), { what: 'serve to print its URL', timeoutMs: 15_000 });
    proxy = await startFaultProxy(Number(new URL(/serving terminals on (ws:\S+)/.exec(printed)![1]!).port));
  });

  afterAll(() => {
    try {
      tmux('kill-server');
    } catch {
      // no session was started
    }
    proxy?.close();
    server?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  it('a scripted full-screen program: live, after a re-attach, after a reconnect, after a resize', async () => {
    startPair('draw', `bash ${join(dir, 'draw.sh')}; sleep 600`);
    await waitFor(() => /^\$\s*$/m.test(tmux('capture-pane', '-p', '-t', 'draw-remote')), { what: 'the remote prompt', timeoutMs: 20_000 });
    tmux('send-keys', '-t', 'draw-remote', `clear; bash ${join(dir, 'draw.sh')}`, 'Enter');
    await same('draw', 'live use');

    await reattach('draw');
    await same('draw', 'after a re-attach');

    await reconnect('draw');
    await same('draw', 'after a reconnect');

    for (const session of ['draw-local', 'draw-remote']) tmux('resize-window', '-t', session, '-x', '100', '-y', '30');
    await same('draw', 'after a resize');

    for (const session of ['draw-local', 'draw-remote']) tmux('send-keys', '-t', session, 'Enter'); // the program ends
    await waitFor(() => /^\$\s*$/m.test(tmux('capture-pane', '-p', '-t', 'draw-remote')), { what: 'the remote prompt after the program', timeoutMs: 20_000 });
    tmux('send-keys', '-t', 'draw-remote', 'echo plain-$((6*7))', 'Enter');
    await waitFor(() => /^plain-42$/m.test(tmux('capture-pane', '-p', '-t', 'draw-remote')), { what: 'the shell after the program', timeoutMs: 20_000 });
    // No attribute the repaint set may outlive the program: the shell's line is plain.
    expect(plainText(tmux('capture-pane', '-p', '-e', '-t', 'draw-remote'))).toMatch(/^plain-42$/m);
  }, 180_000);

  /** Starts `command` in both panes (the remote one typed into its shell) with the same TERM, and waits until the program shows `ready`. */
  const runInPair = async (name: string, command: string, ready: RegExp) => {
    startPair(name, `TERM=xterm-256color ${command}; sleep 600`);
    await waitFor(() => /^\$\s*$/m.test(tmux('capture-pane', '-p', '-t', `${name}-remote`)), { what: 'the remote prompt', timeoutMs: 20_000 });
    tmux('send-keys', '-t', `${name}-remote`, `clear; ${command}`, 'Enter');
    for (const side of ['local', 'remote']) {
      await waitFor(() => ready.test(tmux('capture-pane', '-p', '-t', `${name}-${side}`)), { what: `${command} ready (${side})`, timeoutMs: 20_000 }).catch((e: Error) => {
        throw new Error(`${e.message}; the pane shows:\n${tmux('capture-pane', '-p', '-t', `${name}-${side}`)}`);
      });
    }
  };

  it.skipIf(!has('vim'))('vim with line numbers and syntax colours: live, after a re-attach, after a reconnect', async () => {
    const file = join(dir, 'sample.c');
    writeFileSync(file, Array.from({ length: 40 }, (_, i) => `int f${i}(void) { return ${i}; } /* line ${i} */`).join('\n'));
    await runInPair('vim', `vim -u NONE -i NONE -N -n -R -c 'set number' -c 'syntax on' -c 'set laststatus=2' ${file}`, /line 0 \*\//);
    await same('vim', 'vim, live');
    await reattach('vim');
    await same('vim', 'vim, after a re-attach');
    await reconnect('vim');
    await same('vim', 'vim, after a reconnect');
    for (const side of ['local', 'remote']) tmux('send-keys', '-t', `vim-${side}`, ':q!', 'Enter');
    // Typed only once the shell is back: vim drops what is typed ahead of its exit.
    // attach itself stays on the local alternate screen: vim's leaving it shows as its text gone and the prompt back.
    await waitFor(() => !/line 0 \*\//.test(tmux('capture-pane', '-p', '-t', 'vim-remote')) && /^\$\s*$/m.test(tmux('capture-pane', '-p', '-t', 'vim-remote')), { what: 'the remote shell back after vim', timeoutMs: 20_000 });
    tmux('send-keys', '-t', 'vim-remote', 'echo plain-$((6*7))', 'Enter');
    await waitFor(() => /^plain-42$/m.test(tmux('capture-pane', '-p', '-t', 'vim-remote')), { what: 'the shell after vim', timeoutMs: 20_000 }).catch((e: Error) => {
      throw new Error(`${e.message}; the pane shows:\n${tmux('capture-pane', '-p', '-t', 'vim-remote')}`);
    });
    expect(plainText(tmux('capture-pane', '-p', '-e', '-t', 'vim-remote'))).toMatch(/^plain-42$/m);
  }, 180_000);

  it.skipIf(!has('less'))('less: live, after a re-attach', async () => {
    const file = join(dir, 'pages.txt');
    writeFileSync(file, Array.from({ length: 200 }, (_, i) => `page line ${i}`).join('\n'));
    await runInPair('less', `less -R ${file}`, /page line 0/);
    await same('less', 'less, live');
    await reattach('less');
    await same('less', 'less, after a re-attach');
  }, 120_000);
});
