import { describeConnectionFaults } from './connection-faults.ts';

// The worker beside the API on one event loop, or on its own thread (CLARION_WORKER_THREAD): connection-faults.ts.
describeConnectionFaults('worker thread');
