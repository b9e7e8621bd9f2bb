import type { HostRuntimeOptions } from '../../src/host/runtime.js';
import { ScriptBackend } from '../../src/host/script-backend.js';

/** A factory serving script terminals for the given names; every other name is TERMINAL_NOT_FOUND. */
export function scriptTerminals(...names: string[]): HostRuntimeOptions['terminals'] {
  return (name) => (names.includes(name) ? new ScriptBackend({ banner: `termwire script terminal ${name}\r\n$ ` }) : undefined);
}
