import { describe, expect, it } from 'vitest';
import { OutputHistory } from './output-history.js';
import { decideResume, type ResumableTerminal } from './resume-decision.js';

const utf8 = new TextEncoder();

/** A terminal that printed `pieces`, keeping `limit` bytes of history. */
function terminal(pieces: readonly string[], limit = 1024, lastResizeSeq?: number): ResumableTerminal {
  const history = new OutputHistory(16);
  let seq = 0;
  for (const p of pieces) {
    seq += utf8.encode(p).length;
    history.append(utf8.encode(p), seq, limit);
  }
  return { instanceId: 'i1', seq, lastResizeSeq, history };
}

const PIECES = ['line 1\r\n', 'line 2\r\n', 'line 3\r\n'];

describe('decideResume', () => {
  it('asks nothing of a Subscribe without a resume point', () => {
    expect(decideResume({}, terminal(PIECES))).toBeUndefined();
  });

  it('resumes with exactly the bytes after the point', () => {
    const d = decideResume({ resumeFrom: 8, resumeInstanceId: 'i1' }, terminal(PIECES));
    expect(d?.outcome).toBe('resumed');
    expect(d?.outcome === 'resumed' && new TextDecoder().decode(d.bytes)).toBe('line 2\r\nline 3\r\n');
  });

  it('resumes with nothing to send when the client saw it all', () => {
    const d = decideResume({ resumeFrom: 24, resumeInstanceId: 'i1' }, terminal(PIECES, 0));
    expect(d?.outcome === 'resumed' && d.bytes.length).toBe(0);
  });

  it('refuses another instance, even at a point the new one has reached', () => {
    expect(decideResume({ resumeFrom: 8, resumeInstanceId: 'i0' }, terminal(PIECES))?.outcome).toBe('otherInstance');
    expect(decideResume({ resumeFrom: 8 }, terminal(PIECES))?.outcome).toBe('otherInstance');
  });

  it('refuses a point past the output, or inside a character', () => {
    expect(decideResume({ resumeFrom: 25, resumeInstanceId: 'i1' }, terminal(PIECES))?.outcome).toBe('unknownPoint');
    expect(decideResume({ resumeFrom: 1, resumeInstanceId: 'i1' }, terminal(['é', 'x']))?.outcome).toBe('unknownPoint');
  });

  it('refuses a point whose bytes are no longer held', () => {
    expect(decideResume({ resumeFrom: 8, resumeInstanceId: 'i1' }, terminal(PIECES, 10))?.outcome).toBe('beyondHistory');
  });

  it('refuses a point the terminal was resized after, and allows one resized at', () => {
    expect(decideResume({ resumeFrom: 8, resumeInstanceId: 'i1' }, terminal(PIECES, 1024, 16))?.outcome).toBe('resized');
    expect(decideResume({ resumeFrom: 16, resumeInstanceId: 'i1' }, terminal(PIECES, 1024, 16))?.outcome).toBe('resumed');
  });
});
