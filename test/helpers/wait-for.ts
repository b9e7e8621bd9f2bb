/** Options for {@link waitFor}. */
export interface WaitForOptions {
  /**
   * Give up after this many milliseconds; default 30000. A hang guard, not a
   * speed check: the suite runs beside the gate's self-test with every core
   * busy, where a bash in a PTY took over 5 s to answer (real-host.test.ts,
   * red in a fresh-clone CI run at load 9).
   */
  timeoutMs?: number;
  /** What is being waited for, named in the timeout error. */
  what: string;
}

const POLL_INTERVAL_MS = 10;

/**
 * Poll `predicate` every ~10 ms until it returns true.
 * Throws `Error('timed out after Nms waiting for: <what>')` at the deadline.
 */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  opts: WaitForOptions,
): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await predicate()) return;
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs}ms waiting for: ${opts.what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}
