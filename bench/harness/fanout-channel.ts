import { normalizeToken, type Platform } from '../../src/domain/device-token.ts';
import { createAccount } from '../../src/store/accounts-queries.ts';
import { createChannel } from '../../src/store/channels-queries.ts';
import type { Store } from '../../src/store/database.ts';
import { importSubscribers, type SubscriberImport } from '../../src/store/subscribers-queries.ts';

/** Subscriber n's platform and token: even iOS (hex), odd Android; the bare client sends to the same tokens. */
export function benchDevice(n: number): { platform: 'ios' | 'android'; token: string } {
  const platform = n % 2 === 0 ? 'ios' : 'android';
  return { platform, token: benchToken(platform, n) };
}

function benchToken(platform: 'ios' | 'android', n: number): string {
  return platform === 'ios' ? n.toString(16).padStart(64, '0') : `bench-token-${n}`;
}

export interface BenchChannel {
  accountId: string;
  channelId: string;
  code: string;
  size: number;
}

export interface FanoutMix {
  /** Subscriber n is on platforms[n % length]. Default ios, android: benchDevice's tokens, the bare client's too. */
  platforms?: readonly Platform[];
  /** PushSubscription JSON for the web subscribers, used in turn (bench/harness/web-subscriptions.ts). */
  webSubscriptions?: readonly unknown[];
  /** Whether the account's pushes carry receipts (docs/engagement.md); on, as for every new account, by default. */
  receipts?: boolean;
}

/**
 * An account with a channel of `size` subscribers, seeded with the store function `clarion subscribers import` uses.
 * iOS and Android tokens are benchDevice's; web subscribers take the given subscriptions in turn.
 */
export async function seedFanoutChannel(store: Store, size: number, mix: FanoutMix = {}): Promise<BenchChannel> {
  const platforms = mix.platforms ?? ['ios', 'android'];
  const webSubscriptions = mix.webSubscriptions ?? [];
  const now = Date.now();
  const account = await createAccount(store.db, { name: 'bench', plan: 'business', now });
  if (mix.receipts === false)
    await store.db.updateTable('accounts').set({ receipts_enabled: 0 }).where('id', '=', account.id).execute();
  const channel = await createChannel(store.db, {
    accountId: account.id,
    code: 'bench',
    name: 'bench',
    description: null,
    now,
  });
  let web = 0;
  for (let start = 0; start < size; start += 5000) {
    const rows: SubscriberImport[] = [];
    for (let n = start; n < Math.min(size, start + 5000); n += 1) {
      const platform = platforms[n % platforms.length]!;
      const raw = platform === 'web' ? webSubscriptions[web++] : benchToken(platform, n);
      if (platform === 'web' && raw === undefined)
        throw new Error(`only ${webSubscriptions.length} web subscriptions for ${size} subscribers`);
      const token = normalizeToken(platform, raw);
      if (!token.ok) throw new Error(`bench token ${n} is invalid`);
      rows.push({ platform, ...token.value, pushToStartToken: null, timezone: null, locale: null, externalId: null });
    }
    await store.db.transaction().execute((trx) =>
      importSubscribers(trx, {
        accountId: account.id,
        channelId: channel.id,
        channelCode: channel.code,
        rows,
        events: false,
        now,
      }),
    );
  }
  return { accountId: account.id, channelId: channel.id, code: channel.code, size };
}
