import { buildManifest } from '../manifest/build-manifest.js';

const HELP = `Usage: termwire manifest [--help]

Prints this build's wire manifest as JSON on stdout: package version, wire
version, every opcode (number, name, direction, payload kind and JSON Schema,
gating capability, since, retired), the capability registry, the capabilities
the reference host and client advertise, and the peer protocol version.
\`termwire compat\` runs this in each build it compares.

Exit codes: 0 printed, 2 usage error.`;

export async function run(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(HELP + '\n');
    return 0;
  }
  if (args.length > 0) {
    process.stderr.write(`termwire manifest: unexpected argument '${args[0]}'\n\n${HELP}\n`);
    return 2;
  }
  process.stdout.write(JSON.stringify(buildManifest(), null, 2) + '\n');
  return 0;
}
