import type { HeadlessTerminal } from './terminal-pool.js';
import { xtermCore } from './xterm-internals.js';

/**
 * Bounds the OSC 8 links a screen remembers. xterm keeps every link a program
 * opens, with a marker on its line, until that line leaves the buffer: links
 * opened on one line (or on the alternate screen, which never scrolls lines
 * away) piled up at about 3 KB each, and a program printing links with fresh
 * ids took the host to 1.75 GB. Past `limit` the oldest link is forgotten
 * before a new one is registered: its cells keep their text and lose the link
 * (a snapshot draws them plain), the newest links stay. The output forwarded
 * to clients is untouched.
 */
export function capScreenLinks(term: HeadlessTerminal, limit: number): { dispose(): void } {
  return term.parser.registerOscHandler(8, (data) => {
    // As xterm reads OSC 8: "params;uri", and an empty uri closes the open link, which registers nothing.
    const separator = data.indexOf(';');
    if (separator === -1 || separator === data.length - 1) return false;
    const service = xtermCore(term)?._oscLinkService;
    const links = service?._dataByLinkId;
    if (!links) return true; // an xterm whose registry cannot be bounded registers no links at all
    while (links.size >= limit) {
      const [id, oldest] = links.entries().next().value!;
      // Disposing its markers makes xterm drop it; one without any is dropped directly.
      for (const marker of [...(oldest.lines ?? [])]) marker.dispose();
      links.delete(id);
      if (oldest.key !== undefined) service._entriesWithId?.delete(oldest.key);
    }
    return false;
  });
}
