/**
 * `npm run build` runs this after compiling (scripts/build.mjs), so a build made by `npm ci`'s prepare
 * is one the gate recognises as current and does not redo. Never fails the
 * build: without a stamp the gate simply builds once more.
 */
import { fileURLToPath } from 'node:url';
import { stampFreshBuild } from './build-stamp.js';

// dist/compat/baseline/ -> the project root.
const root = fileURLToPath(new URL('../../../', import.meta.url));
await stampFreshBuild(root).catch((e: unknown) => process.stderr.write(`termwire build: no build stamp written (${(e as Error).message})\n`));
