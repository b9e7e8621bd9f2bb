// Child process for the signal-cleanup test: materialises argv[2]@argv[3] into argv[4].
import { installSignalCleanup } from '../../../compat/cleanup.js';
import { materialise } from '../../../compat/baseline/materialise.js';
import { silentProgress } from '../../../compat/progress.js';

const [repo, commit, cacheDir] = process.argv.slice(2) as [string, string, string];
installSignalCleanup();
await materialise({ repo, commit, cacheDir, progress: silentProgress });
