import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_HOST_OPTIONS, HOST_CLOSE_REASONS } from '../src/host/options.js';

const doc = readFileSync(new URL('../docs/host-limits.md', import.meta.url), 'utf8');
// The limits issue 9 added, and the screen backlog; older options are documented in their code.
const NEW_LIMITS = ['screenBacklogBytes', 'maxCols', 'maxRows', 'maxScrollbackLines', 'maxScreenCells', 'maxStreamsPerConnection', 'linkSoftBufferedBytes', 'linkHardBufferedBytes', 'linkDrainDeadlineMs', 'linkDrainCheckMs', 'maxErrorRepliesPerSecond', 'maxSnapshotRequestsPerSecond', 'maxTitleBytes', 'maxQueuedInputBytes', 'minResizeIntervalMs', 'maxTotalScreenCells', 'maxScreenLinks', 'maxTerminals', 'maxTotalScreenBacklogBytes', 'maxSnapshotBytesPerSecond', 'outputHistoryBytes', 'maxTotalOutputHistoryBytes'] as const;

describe('docs/host-limits.md', () => {
  it('names every limit, its error codes and every close reason', () => {
    for (const name of NEW_LIMITS) {
      expect(DEFAULT_HOST_OPTIONS).toHaveProperty(name);
      expect(doc).toContain(`\`${name}\``);
    }
    for (const code of ['RESIZE_TOO_LARGE', 'TOO_MANY_STREAMS', 'TERMINAL_EVICTED', 'SCREEN_BEHIND', 'CONNECTION_EVICTED_IDLE', 'CONNECTION_EVICTED_SHARE', ...Object.keys(HOST_CLOSE_REASONS)]) expect(doc).toContain(`\`${code}\``);
  });
});
