import { describe, expect, it } from 'vitest';
import { snapshotContentChanged } from '../../compat/rules/dynamic/snapshot-content.js';
import { rememberDrawnScreens, renderedScreen, renderSnapshots } from '../../compat/journey/render-snapshots.js';
import { editFrames, healthySet } from './helpers/recordings.js';

describe('SNAPSHOT_CONTENT_CHANGED', () => {
  it('stays quiet when the new host serialises what the old host did', () => {
    expect(snapshotContentChanged.run(healthySet())).toEqual([]);
  });

  it('names the occurrence and the first differing text when the new host changes one snapshot', () => {
    const set = editFrames(healthySet(), 'oldClientNewHost', (f) =>
      f.opcodeName === 'SnapshotChunk' && f.occurrence === 'reveal' && typeof f.payload === 'string' ? { ...f, payload: f.payload + ' did: changed' } : f,
    );
    const findings = snapshotContentChanged.run(set);
    expect(findings.length).toBeGreaterThan(0);
    expect(findings.every((f) => f.occurrence === 'reveal' && f.direction === 'old client × new host')).toBe(true);
    expect(findings[0]!.message).toContain('did:');
  });

  it('does not compare a change in the old host, which the old client already reads', () => {
    const set = editFrames(healthySet(), 'newClientOldHost', (f) =>
      f.opcodeName === 'SnapshotChunk' && typeof f.payload === 'string' ? { ...f, payload: f.payload + 'x' } : f,
    );
    expect(snapshotContentChanged.run(set)).toEqual([]);
  });

  it('judges two texts by the screen they draw: another spelling of the same screen is no change, another screen is', async () => {
    const reencode = (text: string) => `${text}\x1b[0m`; // a redundant reset: the pen is already the default
    const base = healthySet();
    const withScreens = async (set: typeof base) => {
      for (const key of ['oldOld', 'oldClientNewHost'] as const) set[key].snapshotScreens = await renderSnapshots(set[key]);
      return set;
    };
    const respelled = await withScreens(editFrames(healthySet(), 'oldClientNewHost', (f) => (f.opcodeName === 'SnapshotChunk' && f.occurrence === 'reveal' && typeof f.payload === 'string' ? { ...f, payload: reencode(f.payload) } : f)));
    expect(snapshotContentChanged.run(respelled)).toEqual([]);
    const changed = await withScreens(editFrames(healthySet(), 'oldClientNewHost', (f) => (f.opcodeName === 'SnapshotChunk' && f.occurrence === 'reveal' && typeof f.payload === 'string' ? { ...f, payload: `${f.payload}did: changed` } : f)));
    expect(snapshotContentChanged.run(changed).map((f) => f.occurrence)).toContain('reveal');
    // Without the screens (an older recording), the spelling alone still counts.
    const unrendered = editFrames(healthySet(), 'oldClientNewHost', (f) => (f.opcodeName === 'SnapshotChunk' && f.occurrence === 'reveal' && typeof f.payload === 'string' ? { ...f, payload: reencode(f.payload) } : f));
    expect(snapshotContentChanged.run(unrendered).length).toBeGreaterThan(0);
  });

  it('draws a snapshot text once per size: a screen a cached reference already drew is taken from it, another size is drawn', async () => {
    const marked = (mark: string) => editFrames(healthySet(), 'oldOld', (f) => (f.opcodeName === 'SnapshotChunk' && typeof f.payload === 'string' ? { ...f, payload: `${f.payload}${mark}` } : f)).oldOld;
    const reference = marked('drawn-once');
    const drawn = await renderSnapshots(reference);
    expect(drawn.length).toBeGreaterThan(1);
    // A digest no drawing gives: what comes back for these texts can only be what the reference said it drew.
    rememberDrawnScreens({ ...reference, snapshotScreens: drawn.map((d) => `from the reference ${d}`) });
    expect(await renderSnapshots(marked('drawn-once'))).toEqual(drawn.map((d) => `from the reference ${d}`));
    const resized = { ...reference, frames: reference.frames.map((f) => (f.opcodeName === 'SnapshotStart' ? { ...f, payload: { ...(f.payload as object), cols: 33 } } : f)) };
    expect((await renderSnapshots(resized)).every((d) => /^[0-9a-f]{64}$/.test(d))).toBe(true);
  });

  it('counts what a snapshot saves for later as content: the pen the shell gets back when vim leaves the alternate screen', async () => {
    const leaked = await renderedScreen('$ \x1b[1;7mbold\x1b[?1049h\x1b[0m\x1b[Halt', 20, 5);
    const reset = await renderedScreen('$ \x1b[1;7mbold\x1b[0m\x1b[?1049h\x1b[0m\x1b[Halt', 20, 5);
    expect(leaked).not.toBe(reset);
  });

  it('digests a screen cell by cell: the same screen alike, a pen moved one cell over or a cell in scrollback told apart', async () => {
    const lines = (bold: number) => Array.from({ length: 12 }, (_, i) => (i === bold ? `\x1b[1mline ${i}\x1b[0m` : `line ${i}`)).join('\r\n');
    expect(await renderedScreen('\x1b[1ma\x1b[0mb', 10, 3)).toBe(await renderedScreen('\x1b[1ma\x1b[0mb', 10, 3));
    expect(await renderedScreen('\x1b[1ma\x1b[0mb', 10, 3)).not.toBe(await renderedScreen('a\x1b[1mb\x1b[0m', 10, 3));
    // Row 1 of 12 lines on a 3-row terminal has scrolled out of view.
    expect(await renderedScreen(lines(1), 10, 3)).not.toBe(await renderedScreen(lines(-1), 10, 3));
  });
});
