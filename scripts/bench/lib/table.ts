import { type Row, targetMet } from './row.js';

function useColor(): boolean {
  return Boolean(process.stdout.isTTY) && !('NO_COLOR' in process.env);
}

function formatValue(value: number): string {
  if (value >= 1e9) return `${(value / 1e9).toFixed(2)} G`;
  if (value >= 1e6) return `${(value / 1e6).toFixed(2)} M`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(2)} k`;
  return value.toFixed(value >= 10 ? 1 : 3);
}

/** A plain-text table; colour only on a TTY without NO_COLOR. */
export function renderTable(rows: readonly Row[]): string {
  const color = useColor();
  const paint = (code: number, text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const header = ['section', 'measure', 'value', 'ratio', 'vs', 'target', ''];
  const body = rows.map((row) => {
    const met = targetMet(row);
    return [
      row.section,
      row.name,
      `${formatValue(row.value)}${row.unit}`,
      row.ratio === undefined ? '' : `${row.ratio.toFixed(2)}x`,
      row.baseline ?? '',
      row.ceiling !== undefined ? `<= ${formatValue(row.ceiling)}${row.unit}` : row.target === undefined ? '' : `>= ${row.target}x`,
      met === undefined ? (row.note ?? '') : met ? 'met' : 'MISSED',
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => {
        const padded = i === 2 || i === 3 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!);
        if (c === 'met') return paint(32, padded);
        if (c === 'MISSED') return paint(31, padded);
        return padded;
      })
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
