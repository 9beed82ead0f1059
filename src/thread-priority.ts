import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Gives the calling thread a nice value of its own (Linux only). On Linux the nice value belongs to each thread, and
 * setpriority(2) given a thread id changes that thread alone (https://man7.org/linux/man-pages/man2/setpriority.2.html,
 * "BUGS"); the thread reads its own id from /proc/thread-self (https://man7.org/linux/man-pages/man5/proc.5.html).
 * Raising a nice value needs no privilege. Elsewhere this does nothing and says so.
 *
 * Used by the delivery worker's thread (src/worker-thread-entry.ts): the API thread keeps nice 0, so when both want a
 * core the scheduler runs the API's requests first and the fan-out takes what is left.
 */
export function setThreadNice(nice: number): 'set' | 'unsupported' {
  if (process.platform !== 'linux') return 'unsupported';
  let threadId: number;
  try {
    threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return 'unsupported'; // no /proc (a restricted container)
  }
  setPriority(threadId, nice);
  return 'set';
}
