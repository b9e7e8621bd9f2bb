/**
 * The text of a `tmux capture-pane -p -e` capture with every character that
 * was drawn with a colour or an attribute replaced by U+FFFD, and every other
 * escape sequence too.
 *
 * tmux writes an SGR only where the drawing state changes, and carries that
 * state from line to line, so whether a line's text is plain cannot be read
 * from the line alone: a reset to defaults may or may not precede it, and an
 * attribute set lines earlier may still be in effect. This follows the state.
 */
export function plainText(capture: string): string {
  const drawn = new Set<string>();
  return capture.replace(/\x1b\[([0-9;:]*)m|\x1b[^[]|\x1b\[[0-9;?]*[A-Za-z]|[^\n]/g, (match, params: string | undefined) => {
    if (params === undefined) return match.startsWith('\x1b') || drawn.size > 0 ? '\uFFFD' : match;
    const codes = params === '' ? [0] : params.split(/[;:]/).map(Number);
    for (let i = 0; i < codes.length; i++) applySgr(drawn, codes, i, (skip) => (i += skip));
    return '';
  });
}

/** What each SGR parameter clears, where it clears rather than sets. */
const CLEARS: Record<number, string[]> = {
  22: ['1', '2'], 23: ['3'], 24: ['4', '21'], 25: ['5', '6'], 27: ['7'], 28: ['8'], 29: ['9'], 39: ['fg'], 49: ['bg'],
};

function applySgr(drawn: Set<string>, codes: number[], i: number, skip: (n: number) => void): void {
  const code = codes[i] ?? 0;
  if (code === 0) drawn.clear();
  else if (CLEARS[code]) for (const attribute of CLEARS[code]) drawn.delete(attribute);
  else if (code === 38 || code === 48) {
    drawn.add(code === 38 ? 'fg' : 'bg');
    skip(codes[i + 1] === 5 ? 2 : 4);
  } else if ((code >= 30 && code <= 37) || (code >= 90 && code <= 97)) drawn.add('fg');
  else if ((code >= 40 && code <= 47) || (code >= 100 && code <= 107)) drawn.add('bg');
  else drawn.add(String(code));
}
