import { findAccount } from '../../src/store/accounts-queries.ts';
import { findChannelByCode } from '../../src/store/channels-queries.ts';
import { expectSuccess } from './api-expect.ts';
import { post } from './requests.ts';
import type { TestAccount, TestApp } from './test-app.ts';

/** The account's slug: the first part of its join pages' path. */
export async function accountSlug(t: TestApp, accountId: string): Promise<string> {
  return (await findAccount(t.store.db, accountId))!.slug;
}

/** Switches a channel's join page on or off through the API and returns the channel as the API shows it. */
export async function switchJoinPage(t: TestApp, account: TestAccount, code: string, on: boolean): Promise<any> {
  return expectSuccess(await post(t.app, `/api/v1/channels/${code}/update`, account.secretKey, { joinPage: on }), 200);
}

/** The join key as stored on the channel row (its id), or null while the page is off. */
export async function joinKeyId(t: TestApp, accountId: string, code: string): Promise<string | null> {
  return (await findChannelByCode(t.store.db, accountId, code))!.join_key_id;
}

/** The publishable key a join page embeds, read from its HTML as a visitor's browser would. */
export function embeddedJoinKey(html: string): string {
  const key = /data-key="([^"]+)"/.exec(html)?.[1];
  if (!key) throw new Error(`the join page embeds no key: ${html.slice(0, 300)}`);
  return key;
}
