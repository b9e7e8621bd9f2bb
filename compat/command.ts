import type { Command } from '../src/cli/main.js';

/** `termwire compat`, as the entry point hands it to the CLI; the gate itself loads only when the command runs. */
export const COMPAT_COMMAND: Command = {
  summary: 'check the working tree against the last release in both skew directions',
  load: () => import('./cli.js'),
};
