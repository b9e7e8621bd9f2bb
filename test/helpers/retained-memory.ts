import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// A collection before each reading: RSS and heap size also count garbage not yet collected, which
// floods produce in bursts; what a limit must bound is what the process keeps.
setFlagsFromString('--expose-gc');
// By default V8 frees a collected ArrayBuffer's memory on a background thread after the collection,
// and process.memoryUsage() counts it until then: on a busy machine a flood's freed Buffers were still
// counted, 5 MiB retained read as 17 to 29. Sweeping them inside the collection makes a reading exact.
setFlagsFromString('--no-concurrent-array-buffer-sweeping');
const collect = runInNewContext('gc') as () => void;

/** Bytes the process holds after a full collection: the JS heap in use plus external memory (Buffers, typed arrays). */
export function retainedBytes(): number {
  collect();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}
