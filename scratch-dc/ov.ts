import { readFileSync, readdirSync, statSync } from 'node:fs';
import { seedFrames } from '../compat/codec-diff/compare-decoders.ts';
const biggest = (dir: string) => readdirSync(dir).map((f) => dir + '/' + f).sort((a, b) => statSync(b).size - statSync(a).size)[0]!;
const seedsOf = (dir: string) => new Set(seedFrames(JSON.parse(readFileSync(biggest(dir), 'utf8')).frames.map((f: any) => f.rawHex)).map((s) => Buffer.from(s).toString('hex')));
const [a, b] = [seedsOf(process.argv[2]!), seedsOf(process.argv[3]!)];
const both = [...a].filter((x) => b.has(x));
console.log('seeds a', a.size, 'b', b.size, 'shared', both.length);
const opOf = (h: string) => parseInt(h.slice(4, 6), 16);
const by: Record<number, [number, number]> = {};
for (const x of a) { const o = opOf(x); by[o] ??= [0, 0]; by[o][0]++; if (b.has(x)) by[o][1]++; }
console.log(JSON.stringify(by));
