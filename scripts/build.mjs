/**
 * `npm run build` (before its build stamp): compiles every source of the
 * folders tsconfig.build.json includes (src/ and compat/, tests left out) to
 * dist/ with esbuild, file by file, laid out as tsc would (dist/src/…,
 * dist/compat/…, ES2022 modules, source maps).
 *
 * Why not tsc: the gate builds the working tree on every run, and its
 * self-test once per planted break; tsc parses and binds the whole program
 * even when nothing changed (about 3 s quiet, 5 s of CPU on a loaded runner),
 * esbuild transpiles it in a fraction of a second. Types are still checked:
 * `npm run typecheck` is part of `npm test`, and `npm pack` writes the
 * declarations (`prepack`). Plain JavaScript, so a fresh checkout builds
 * with nothing but its own dependencies. The entries a process starts from
 * are then bundled (compat/baseline/bundle-entries.ts), and the host's one
 * native helper compiled (scripts/build-native.mjs).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { buildNative } from './build-native.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The folders tsconfig.build.json includes (`npm run build:types` and the typecheck read the same file). */
const { include } = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8'));

/** Every .ts source below `dir`, tests and declaration files left out (tsconfig.build.json's exclude). */
function sources(dir) {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)));
}

await build({
  absWorkingDir: root,
  entryPoints: include.flatMap(sources),
  outdir: 'dist',
  outbase: '.',
  format: 'esm',
  platform: 'node',
  target: 'es2022',
  sourcemap: true,
  tsconfig: 'tsconfig.build.json',
  logLevel: 'warning',
});

buildNative(root);

// Then the entries a process starts from (the CLI, the gate's peers, the screen worker), bundled.
const { bundleEntries } = await import(pathToFileURL(join(root, 'dist/compat/baseline/bundle-entries.js')).href);
await bundleEntries(root);
