import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { hostDefaults, numberAt, type PromisedLimit, type PromisedLimits } from '../../src/manifest/limit-values.js';
import type { WireManifest } from '../../src/manifest/manifest-schema.js';

const READ_TIMEOUT_MS = 30_000;

/** The option modules a build's defaults live in, by their place in its dist; each is optional (an older build may lack one). */
const OPTION_MODULES = {
  host: ['dist/src/host/options.js', 'DEFAULT_HOST_OPTIONS'],
  delivery: ['dist/src/delivery/options.js', 'DEFAULT_DELIVERY_OPTIONS'],
  client: ['dist/src/client/options.js', 'DEFAULT_CLIENT_OPTIONS'],
} as const;

/** A build's option defaults as its own dist holds them, read in a child process: its modules must not load into the gate. Undefined when they cannot be read. */
export async function readOptionDefaults(
  buildDir: string,
  modules: ReadonlyArray<keyof typeof OPTION_MODULES> = ['host', 'delivery', 'client'],
): Promise<{ host?: unknown; delivery?: unknown; client?: unknown } | undefined> {
  const wanted = Object.fromEntries(modules.map((m) => [m, OPTION_MODULES[m]]));
  const script = `
    const read = async (file, name) => { try { return (await import(${JSON.stringify(pathToFileURL(buildDir).href)} + '/' + file))[name]; } catch { return undefined; } };
    const out = {};
    for (const [key, [file, name]] of Object.entries(${JSON.stringify(wanted)})) out[key] = await read(file, name);
    process.stdout.write(JSON.stringify(out));`;
  const result = await execa(process.execPath, ['--input-type=module', '-e', script], { cwd: buildDir, reject: false, timeout: READ_TIMEOUT_MS });
  if (result.exitCode !== 0) return undefined;
  try {
    return JSON.parse(String(result.stdout)) as { host?: unknown; delivery?: unknown; client?: unknown };
  } catch {
    return undefined;
  }
}

/**
 * A baseline from before manifests listed promised limits (0.1.0) still has
 * its defaults in its own dist: they are read there, by the current build's
 * list of what is promised, so a limit lowered since that release is judged
 * too. Undefined when they cannot be read (the note then says limits were not compared).
 */
export async function baselineLimits(buildDir: string, current: PromisedLimits): Promise<PromisedLimits | undefined> {
  const defaults = await readOptionDefaults(buildDir);
  if (!defaults?.host || !defaults.client) return undefined;
  return { host: valuesOf(hostDefaults(defaults.host, defaults.delivery), current.host), client: valuesOf(defaults.client, current.client) };
}

function valuesOf(defaults: unknown, promised: Readonly<Record<string, PromisedLimit>>): Record<string, PromisedLimit> {
  const out: Record<string, PromisedLimit> = {};
  for (const [name, { floor }] of Object.entries(promised)) {
    const value = numberAt(defaults, name);
    if (value !== undefined) out[name] = { value, floor };
  }
  return out;
}

/** The baseline's manifest with its promised limits, read from its dist where the manifest does not list them, and a note saying so. */
export async function withBaselineLimits(baseline: WireManifest, buildDir: string, current: WireManifest): Promise<{ manifest: WireManifest; note?: string }> {
  if (baseline.limits || !current.limits) return { manifest: baseline };
  const limits = await baselineLimits(buildDir, current.limits);
  const listed = `the baseline manifest (${baseline.packageVersion}) lists no promised limits`;
  if (!limits) return { manifest: baseline, note: `${listed}, and its option defaults could not be read from its dist: LIMIT_LOWERED was not judged` };
  const count = Object.keys(limits.host).length + Object.keys(limits.client).length;
  return { manifest: { ...baseline, limits }, note: `${listed}; ${count} of them were read from the option defaults in its dist` };
}

