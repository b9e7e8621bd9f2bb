import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/**
 * The processes a build starts, each from one bundled file in BUNDLE_DIR: the
 * CLI (serve, attach, the gate), the gate's peers and the host's screen
 * worker. A start from dist/ reads and links a few hundred modules, about
 * 0.3 CPU-s of a peer's 0.6; from a bundle it reads one file, and a gate run
 * starts dozens of peers. Each bundle is whole, never split into chunks
 * loaded later: the gate rebuilds the working tree it runs from, and a chunk
 * of the build it started with would be gone by the time it was wanted.
 */
export const BUNDLE_DIR = join('dist', 'bundle');

export const BUNDLED_ENTRIES = {
  cli: 'dist/compat/termwire-entry.js',
  peer: 'dist/compat/peer/main.js',
  'screen-worker': 'dist/src/host/screen-worker.js',
} as const;

/** Spelled in pieces: this module is bundled too, and the text whole in a string here would be rewritten inside it. */
const META_URL = ['import', 'meta', 'url'].join('.');

/** Where a process entry of a build is: its bundle when the build has one, the compiled module otherwise. */
export function entryOf(buildDir: string, name: keyof typeof BUNDLED_ENTRIES): string {
  const bundled = join(buildDir, BUNDLE_DIR, `${name}.js`);
  return existsSync(bundled) ? bundled : join(buildDir, BUNDLED_ENTRIES[name]);
}

/**
 * Bundles a built project's entries (all of BUNDLED_ENTRIES unless named)
 * into BUNDLE_DIR, each file written over the last build's. Each module keeps reading its own location as import.meta.url, so
 * files it names beside itself (package.json, a worker) are found as from
 * dist/. Packages with native code or optional native helpers stay outside.
 */
export async function bundleEntries(buildDir: string, entries: Readonly<Record<string, string>> = BUNDLED_ENTRIES): Promise<void> {
  const { build } = await import('esbuild');
  const outdir = join(buildDir, BUNDLE_DIR);
  await build({
    absWorkingDir: buildDir,
    entryPoints: { ...entries },
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'es2022',
    // esbuild runs its own binary: the gate loads it from node_modules when it bundles a baseline.
    external: ['node-pty', 'bufferutil', 'utf-8-validate', 'esbuild'],
    // Packages written as CommonJS (xterm, ws) call require: an ES module has none of its own.
    banner: { js: `import { createRequire as termwireCreateRequire } from 'node:module'; const require = termwireCreateRequire(${META_URL});` },
    plugins: [
      {
        name: 'each-module-its-own-url',
        setup(b) {
          b.onLoad({ filter: /\.js$/ }, (args) => {
            if (!args.path.startsWith(join(buildDir, 'dist'))) return undefined;
            const text = readFileSync(args.path, 'utf8');
            if (!text.includes(META_URL)) return undefined;
            const own = `new URL(${JSON.stringify(relative(outdir, args.path))}, ${META_URL}).href`;
            return { contents: text.replaceAll(META_URL, own), loader: 'js', resolveDir: dirname(args.path) };
          });
        },
      },
    ],
    logLevel: 'warning',
  });
}
