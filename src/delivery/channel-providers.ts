import { appIdOfChannel } from '../store/apps-queries.ts';
import type { DeliveryDependencies } from './dispatch-job.ts';
import type { PushProviders } from './push-sender.ts';

/** What the send jobs (notifications and Live Activities) need to reach the providers of a channel's app. */
export interface SendDependencies extends DeliveryDependencies {
  /** The built-in providers (CLARION_APNS_* / CLARION_FCM_*), for channels without an app. */
  providers: PushProviders;
  /**
   * The providers of an app (provider-client-registry.ts); absent: every channel uses `providers`. `whenGone`: the app
   * to use instead if this one was deleted (without it, the built-in providers).
   */
  providersFor?: (appId: string | null, whenGone?: () => Promise<string | null>) => Promise<PushProviders>;
  /** What the pushes' receipts are signed with (domain/receipt.ts receiptKey, from the instance key). */
  receiptKey: Buffer;
}

/** The providers a channel's pushes go through: its app's (docs/apps.md), or the built-in ones. */
export async function providersOfChannel(deps: SendDependencies, channelId: string): Promise<PushProviders> {
  return deps.providersFor ? deps.providersFor(await appIdOfChannel(deps.store.db, channelId)) : deps.providers;
}
