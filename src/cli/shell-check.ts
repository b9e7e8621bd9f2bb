import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Checked at startup, so a typo fails `termwire serve` at once with one line
 * instead of every attach later: a path must be an executable file, a bare
 * name must be one on $PATH. Returns why not, or undefined when it is fine.
 */
export function shellProblem(command: string, pathVariable = process.env.PATH ?? ''): string | undefined {
  if (command.includes('/')) return isExecutableFile(command) ? undefined : `--shell ${command} is not an executable file`;
  const found = pathVariable.split(delimiter).some((dir) => dir !== '' && isExecutableFile(join(dir, command)));
  return found ? undefined : `--shell ${command} is not an executable found on $PATH`;
}
