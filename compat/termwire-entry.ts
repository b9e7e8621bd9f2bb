/**
 * What bin/termwire.js runs, as one module: the protocol stack's CLI and the
 * gate's command beside it, so its bundle (compat/baseline/bundle-entries.ts)
 * holds one copy of the modules both use.
 */
export { main } from '../src/cli/main.js';
export { COMPAT_COMMAND } from './command.js';
