// Entry of the delivery worker's thread (src/worker-thread.ts starts it): a worker thread does not inherit the
// main thread's tsx hooks, so it registers them itself, as bin/clarion.js does for the process.
import { register } from 'tsx/esm/api';

register();
await import('../src/worker-thread-entry.ts');
