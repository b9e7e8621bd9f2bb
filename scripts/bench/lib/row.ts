/** One measured line of a benchmark report. */
export interface Row {
  readonly section: string;
  /** What was measured, e.g. "encodeFrameInto 64 B". */
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  /** value / baseline, measured side by side in the same run. */
  readonly ratio?: number;
  /** What the ratio is against, e.g. "naive codec". */
  readonly baseline?: string;
  /** The ratio the issue asks for, if any. */
  readonly target?: number;
  /** The most the value may be, for a target the issue states in the value's own unit (a latency budget). */
  readonly ceiling?: number;
  readonly note?: string;
}

/** A benchmark section: scripts/bench/<file>.ts exporting `name` and `run`. */
export interface BenchSection {
  readonly name: string;
  run(): Promise<Row[]>;
}

export function targetMet(row: Row): boolean | undefined {
  if (row.ceiling !== undefined) return row.value <= row.ceiling;
  if (row.target === undefined || row.ratio === undefined) return undefined;
  return row.ratio >= row.target;
}
