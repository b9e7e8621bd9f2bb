import { describe, expect, it } from 'vitest';
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
  return { book, replies, parsed };
}

describe('ScreenBook', () => {
  it("reports a reused terminal's title changes for its new screen only", async () => {
    const { book, replies, parsed } = recordingBook();
    book.handle({ op: 'open', id: 1, cols: 20, rows: 4, scrollback: 10 });
    book.handle({ op: 'dispose', id: 1, token: 100 });
    await screenTerminals.whenIdle();
    const built = screenTerminals.built;
    book.handle({ op: 'open', id: 2, cols: 20, rows: 4, scrollback: 10 });
    expect(screenTerminals.built).toBe(built); // screen 2 got screen 1's terminal
    book.handle({ op: 'write', id: 2, data: '\x1b]0;second\x07', seq: 11 });
    await parsed(2);
    expect(replies.filter((r) => r.kind === 'title')).toEqual([{ kind: 'title', id: 2, title: 'second' }]);
  });
});
