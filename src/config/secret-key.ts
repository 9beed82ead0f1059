import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './load-config.ts';

export const SECRET_KEY_FILE = 'secret.key';

/**
 * The 32-byte key that encrypts secrets at rest. Taken from CLARION_SECRET_KEY (64 hex characters or base64),
 * otherwise read from — or on first start generated into — <data dir>/secret.key with mode 0600.
 * Several machines sharing one PostgreSQL database must all be given the same CLARION_SECRET_KEY.
 */
export function resolveSecretKey(configured: string | undefined, dataDir: string): Buffer {
  if (configured) return decodeKey(configured, 'CLARION_SECRET_KEY');
  const path = join(dataDir, SECRET_KEY_FILE);
  try {
    return decodeKey(readFileSync(path, 'utf8').trim(), path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  try {
    // 'wx' fails if another process created the file first; then read theirs so both use the same key.
    writeFileSync(path, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return decodeKey(readFileSync(path, 'utf8').trim(), path);
  }
}

function decodeKey(text: string, source: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) throw new ConfigError(`${source}: must be 32 bytes, written as 64 hex characters or base64`);
  return key;
}
