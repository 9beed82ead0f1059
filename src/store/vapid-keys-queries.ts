import type { Kysely } from 'kysely';
import type { Database, VapidKeysTable } from './schema.ts';

/** The one row of vapid_keys (docs/web-push.md, "VAPID keys"). */
const CURRENT = 'current';

export async function readVapidKeys(db: Kysely<Database>): Promise<VapidKeysTable | undefined> {
  return db.selectFrom('vapid_keys').selectAll().where('id', '=', CURRENT).executeTakeFirst();
}

/**
 * Stores a generated pair unless one exists. Several processes starting together on one PostgreSQL database may each
 * generate a pair: the first insert wins and everyone reads that one back, so all of them sign with the same key.
 */
export async function insertVapidKeysIfAbsent(
  db: Kysely<Database>,
  keys: { publicKey: string; sealedPrivateKey: string; now: number },
): Promise<VapidKeysTable> {
  await db
    .insertInto('vapid_keys')
    .values({
      id: CURRENT,
      public_key: keys.publicKey,
      sealed_private_key: keys.sealedPrivateKey,
      created_at: keys.now,
    })
    .onConflict((conflict) => conflict.column('id').doNothing())
    .execute();
  return (await readVapidKeys(db))!;
}

/** Replaces the pair (`clarion web-push rotate-keys`): every existing browser subscription stops working. */
export async function replaceVapidKeys(
  db: Kysely<Database>,
  keys: { publicKey: string; sealedPrivateKey: string; now: number },
): Promise<void> {
  await db
    .insertInto('vapid_keys')
    .values({
      id: CURRENT,
      public_key: keys.publicKey,
      sealed_private_key: keys.sealedPrivateKey,
      created_at: keys.now,
    })
    .onConflict((conflict) =>
      conflict
        .column('id')
        .doUpdateSet({ public_key: keys.publicKey, sealed_private_key: keys.sealedPrivateKey, created_at: keys.now }),
    )
    .execute();
}
