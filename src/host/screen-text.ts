import headless from '@xterm/headless';

const { Terminal } = headless;
type HeadlessTerminal = InstanceType<typeof Terminal>;

/** The visible lines of any headless terminal, each trimmed right, trailing blank lines dropped. */
export function screenText(term: HeadlessTerminal): string {
  const buffer = term.buffer.active;
  const lines: string[] = [];
  for (let y = 0; y < term.rows; y++) {
    lines.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true).trimEnd() ?? '');
  }
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}

/** Rebuilds a screen from snapshot text in a fresh terminal of the given size and returns its text. */
export async function replaySnapshot(snapshot: string, cols: number, rows: number): Promise<string> {
  const term = new Terminal({ cols, rows, scrollback: 10_000, allowProposedApi: true, logLevel: 'off' });
  await new Promise<void>((resolve) => term.write(snapshot, resolve));
  const text = screenText(term);
  term.dispose();
  return text;
}
