import { describe, expect, it } from 'vitest';
import { MAX_SCREEN_ESCAPE_STRING } from '../screen/escape-string-cap.js';
import { screenTerminals } from '../screen/terminal-pool.js';
import { ScreenBook, type ScreenReply } from './screen-book.js';

/** A book whose replies are kept, and a way to wait for the answer to one query. */
function recordingBook() {
  const replies: ScreenReply[] = [];
  const answered = new Map<number, () => void>();
  const book = new ScreenBook((reply) => {
    replies.push(reply);
    if (reply.kind === 'answer') answered.get(reply.token)?.();
  });
  let token = 0;
  const parsed = (id: number) =>
    new Promise<void>((resolve) => {
      answered.set(++token, resolve);
      book.handle({ op: 'query', id, token, want: 'seq' });
    });
  /** Asks screen `id` for `want` under `token` and resolves with the answer's text, once everything written before is parsed. */
  const answerText = async (id: number, queryToken: number, want: 'text' | 'snapshot') => {
    book.handle({ op: 'query', id, token: queryToken, want });
    await parsed(id);
    const answer = replies.find((r) => r.kind === 'answer' && r.token === queryToken);
    return answer?.kind === 'answer' ? (answer.text ?? '') : '';
  };
  return { book, replies, parsed, answerText };
}

describe('ScreenBook', () => {
  it("reports a reused terminal's title changes for its new screen only", async () => {
    const { book, replies, parsed } = recordingBook();
    book.handle({ op: 'open', id: 1, cols: 20, rows: 4, scrollback: 10, maxLinks: 1024, sliceMs: 4, maxBacklogMs: 2000 });
    book.handle({ op: 'dispose', id: 1, token: 100 });
    await screenTerminals.whenIdle();
    const built = screenTerminals.built;
    book.handle({ op: 'open', id: 2, cols: 20, rows: 4, scrollback: 10, maxLinks: 1024, sliceMs: 4, maxBacklogMs: 2000 });
    expect(screenTerminals.built).toBe(built); // screen 2 got screen 1's terminal
    book.handle({ op: 'write', id: 2, data: '\x1b]0;second\x07', seq: 11 });
    await parsed(2);
    expect(replies.filter((r) => r.kind === 'title')).toEqual([{ kind: 'title', id: 2, title: 'second' }]);
  });

  it('replies once a piece for a program that sets titles as fast as it can, with the last it set', async () => {
    const { book, replies, parsed } = recordingBook();
    book.handle({ op: 'open', id: 4, cols: 20, rows: 4, scrollback: 10, maxLinks: 1024, sliceMs: 4, maxBacklogMs: 2000 });
    const titles = 20_000;
    book.handle({ op: 'write', id: 4, data: Array.from({ length: titles }, (_, i) => `\x1b]0;title ${i}\x07`).join(''), seq: 1 });
    await parsed(4);
    const replied = replies.filter((r) => r.kind === 'title');
    // About 300 KB: a few pieces (each a few KiB to 64 KiB), never a message per title.
    expect(replied.length).toBeGreaterThan(0);
    expect(replied.length).toBeLessThan(titles / 100);
    expect(replied.at(-1)).toEqual({ kind: 'title', id: 4, title: `title ${titles - 1}` });
  });

  it('hands xterm a title printed by a program cut to MAX_SCREEN_ESCAPE_STRING: xterm would collect 9 MB of it at about 32 bytes a character', async () => {
    const { book, replies, parsed } = recordingBook();
    book.handle({ op: 'open', id: 3, cols: 20, rows: 4, scrollback: 10, maxLinks: 1024, sliceMs: 4, maxBacklogMs: 2000 });
    const piece = new Uint8Array(1024 * 1024).fill(0x61);
    book.handle({ op: 'write', id: 3, data: new TextEncoder().encode('\x1b]0;'), seq: 4 });
    for (let i = 1; i <= 9; i++) book.handle({ op: 'write', id: 3, data: piece, seq: 4 + i * piece.length });
    book.handle({ op: 'write', id: 3, data: '\x07', seq: 5 + 9 * piece.length });
    await parsed(3);
    const titles = replies.filter((r) => r.kind === 'title').map((r) => (r.kind === 'title' ? r.title.length : 0));
    expect(titles).toEqual([MAX_SCREEN_ESCAPE_STRING - 2]); // "0;" is part of the string
    book.handle({ op: 'dispose', id: 3, token: 101 });
  });

  it('clamps counts that make xterm loop (REP, scrolls): `y ESC[999b` draws the rest of the line, as in tmux, not 999 cells', async () => {
    const { book, replies, parsed } = recordingBook();
    book.handle({ op: 'open', id: 4, cols: 20, rows: 4, scrollback: 10, maxLinks: 1024, sliceMs: 4, maxBacklogMs: 2000 });
    book.handle({ op: 'write', id: 4, data: 'y\x1b[999b', seq: 10 });
    book.handle({ op: 'query', id: 4, token: 102, want: 'text' });
    await parsed(4);
    expect(replies.find((r) => r.kind === 'answer' && r.token === 102)).toMatchObject({ seq: 10, text: 'y'.repeat(20) });
    book.handle({ op: 'dispose', id: 4, token: 103 });
  });

  it("snapshots keep the form released clients draw (SnapshotForm 'wire'): keypad as CSI ? 66 h, not attach's repaint form; the repaint's fixes wait for a capability", async () => {
    const { book, answerText } = recordingBook();
    book.handle({ op: 'open', id: 6, cols: 10, rows: 4, scrollback: 10, maxLinks: 4, sliceMs: 4, maxBacklogMs: 2000 });
    // Application keypad, a screen cleared blue, and a last row written to its last column with the cursor moved off it: every fix's case.
    book.handle({ op: 'write', id: 6, data: '\x1b=\x1b[44m\x1b[2J\x1b[H\x1b[0mtop\x1b[4;1H0123456789\x1b[2;3H', seq: 1 });
    const wire = await answerText(6, 106, 'snapshot');
    expect(wire).toContain('\x1b[?66h');
    expect(wire).not.toContain('\x1b=');
    book.handle({ op: 'dispose', id: 6, token: 107 });
  });

  it('remembers at most maxLinks OSC 8 links per screen, the newest: a flood of fresh links once grew the host past 1.7 GB', async () => {
    const { book, answerText } = recordingBook();
    book.handle({ op: 'open', id: 5, cols: 80, rows: 4, scrollback: 10, maxLinks: 4, sliceMs: 4, maxBacklogMs: 2000 });
    const links = Array.from({ length: 10 }, (_, i) => `\x1b]8;id=${i};https://example.com/${i}\x1b\\${i}\x1b]8;;\x1b\\`).join('');
    book.handle({ op: 'write', id: 5, data: links, seq: 1 });
    const text = await answerText(5, 104, 'snapshot');
    expect(text.match(/https:\/\/example\.com\/\d/g)).toEqual(['https://example.com/6', 'https://example.com/7', 'https://example.com/8', 'https://example.com/9']);
    book.handle({ op: 'dispose', id: 5, token: 105 });
  });

  /**
   * How far a screen had parsed a heavy write when a task, queued as the write began, got to run:
   * the write is `segments` copies of `segment`, each after a title naming it, and xterm reports
   * titles from inside its parse. 1 means the task waited for the whole write.
   */
  async function progressWhenOtherTaskRan(cols: number, rows: number, scrollback: number, segment: string, segments: number): Promise<number> {
    let latest = -1;
    let seenByTask: number | undefined;
    let answered!: () => void;
    const done = new Promise<void>((resolve) => (answered = resolve));
    const book = new ScreenBook((reply) => {
      if (reply.kind === 'title') {
        if (latest === -1) setTimeout(() => (seenByTask = latest), 0);
        latest = Number(reply.title);
      }
      if (reply.kind === 'answer') answered();
    });
    book.handle({ op: 'open', id: 1, cols, rows, scrollback, maxLinks: 1024, sliceMs: 4, maxBacklogMs: 2000 });
    const heavy = Array.from({ length: segments }, (_, k) => `\x1b]0;${k + 1}\x07${segment}`).join('');
    book.handle({ op: 'write', id: 1, data: heavy, seq: 1 });
    book.handle({ op: 'query', id: 1, token: 1, want: 'seq' });
    await done;
    book.handle({ op: 'dispose', id: 1, token: 2 });
    expect(latest).toBe(segments);
    return (seenByTask ?? segments) / segments;
  }

  it('lets other work run while one screen of 1000x1000 parses a write of alternate screen switches (pause points)', async () => {
    // 64 switches of 10 to 24 ms each; xterm's slice is 12 ms.
    expect(await progressWhenOtherTaskRan(1000, 1000, 0, '\x1b[?1049h\x1b[?1049l', 64)).toBeLessThan(0.25);
  });

  it('lets other work run while one screen of 1000x1000 parses 128 KiB of line feeds in one write (handed to xterm in pieces)', async () => {
    // 32 segments of 4 KiB: about 20 to 40 ms each at this size.
    expect(await progressWhenOtherTaskRan(1000, 1000, 1000, 'y\n'.repeat(2048), 32)).toBeLessThan(0.25);
  });

  it('hands xterm a write in pieces without breaking a character cut between two of them, as bytes or as text', async () => {
    const { book, answerText } = recordingBook();
    book.handle({ op: 'open', id: 8, cols: 80, rows: 60, scrollback: 100, maxLinks: 1024, sliceMs: 4, maxBacklogMs: 2000 });
    const pad = 'a'.repeat(4095); // the piece boundary falls inside the next character
    book.handle({ op: 'write', id: 8, data: new TextEncoder().encode(`${pad}\u00e9b\r\n`), seq: 1 });
    book.handle({ op: 'write', id: 8, data: `${pad}\u{1f600}c\r\n`, seq: 2 });
    const text = await answerText(8, 108, 'snapshot');
    expect(text).toContain('a\u00e9b');
    expect(text).toContain('a\u{1f600}c');
    expect(text).not.toContain('\ufffd');
    book.handle({ op: 'dispose', id: 8, token: 109 });
  });
});
