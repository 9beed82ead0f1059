// Entry of the delivery worker's thread when the process runs the TypeScript sources (src/worker-thread.ts starts
// it): a worker thread does not inherit the main thread's tsx hooks, so it registers them itself. A process running
// the compiled build starts dist/worker-thread-entry.js directly and never loads this file.
import { register } from 'tsx/esm/api';

register();
await import('../src/worker-thread-entry.ts');
