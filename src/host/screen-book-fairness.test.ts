import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { ScreenBook, type ScreenRequest } from './screen-book.js';

describe('ScreenBook sharing its thread between terminals', () => {
  it("answers an idle terminal's snapshot after at most one slice of one busy terminal, with eight busy", async () => {
    // Requests arrive as in the screen worker: through a message port, read only between tasks.
    const { port1: host, port2: worker } = new MessageChannel();
    const progress = new Map<number, number>();
    let atQuery: Map<number, number> | undefined;
    let atAnswer: Map<number, number> | undefined;
    let answered!: () => void;
    const done = new Promise<void>((resolve) => (answered = resolve));
    const book = new ScreenBook((reply) => {
      if (reply.kind === 'title') {
        progress.set(reply.id, Number(reply.title));
        if (!atQuery) {
          atQuery = new Map(progress);
          host.postMessage({ op: 'query', id: 100, token: 1, want: 'snapshot' } satisfies ScreenRequest);
        }
      }
      if (reply.kind === 'answer' && reply.token === 1) {
        atAnswer = new Map(progress);
        answered();
      }
    });
    worker.on('message', (request: ScreenRequest) => book.handle(request));
    const busy = Array.from({ length: 8 }, (_, i) => i + 1);
    // Each busy screen: 1 MiB of text, a title naming how far it got before every 4 KiB.
    const segment = 'y'.repeat(4000);
    const output = Array.from({ length: 256 }, (_, k) => `\x1b]0;${k + 1}\x07${segment}`).join('');
    for (const id of [...busy, 100]) book.handle({ op: 'open', id, cols: 80, rows: 24, scrollback: 100, maxLinks: 16, sliceMs: 4, maxBacklogMs: 2000 });
    book.handle({ op: 'write', id: 100, data: 'idle\r\n', seq: 6 });
    for (const id of busy) book.handle({ op: 'write', id, data: output, seq: output.length });
    await done;
    const movedWhileWaiting = busy.filter((id) => (atAnswer!.get(id) ?? 0) > (atQuery!.get(id) ?? 0));
    // The slice under way when the query came; xterm's write buffer ran a slice of every busy screen first.
    expect(movedWhileWaiting.length).toBeLessThanOrEqual(1);
    expect(Math.max(...busy.map((id) => atAnswer!.get(id) ?? 0))).toBeLessThan(256);
    for (const id of [...busy, 100]) book.handle({ op: 'dispose', id, token: 1000 + id });
    host.close();
  });
});
