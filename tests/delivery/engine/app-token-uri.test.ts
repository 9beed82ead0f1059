import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listEvents } from '../../../src/store/events-queries.ts';
import { storeAppWithTokenUri } from '../../api/apps/app-fixtures.ts';
import { get, post } from '../../harness/requests.ts';
import { waitFor } from '../../harness/wait-for.ts';
import {
  androidToken,
  finalNotification,
  registerSubscriber,
  startDeliveryHarness,
  type DeliveryHarness,
} from './delivery-harness.ts';

/**
 * Every Android push of an app whose stored service account names a token_uri other than Google's fails without the
 * token request being sent (src/delivery/fcm/fcm-token-uri.ts): the app is marked failing with what to upload, and
 * the subscriber stays. The instance's own CLARION_FCM_SERVICE_ACCOUNT_FILE, whose token_uri names the fake on
 * loopback, keeps delivering.
 */
let h: DeliveryHarness;
beforeAll(async () => {
  h = await startDeliveryHarness({ configure: { allowPrivateAddresses: false, allowPrivateWebhooks: false } });
});
afterAll(async () => h?.close());

describe('an app whose stored service account names another token_uri', () => {
  it('fails its Android pushes with fcm:token_uri_refused, sends no token request, and marks the app failing', async () => {
    const account = await h.newAccount();
    const serviceAccount = h.fcm.createServiceAccount('stored-project');
    const appId = await storeAppWithTokenUri(h, account.id, serviceAccount.json, h.fcm.tokenUri);
    expect((await post(h.app, '/api/v1/channels', account.secretKey, { code: 'news', appId })).statusCode).toBe(201);
    await registerSubscriber(h, account.publishableKey, 'news', 'android', androidToken(7001));

    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, { channelCode: 'news', title: 'Hello' });
    expect(sent.statusCode).toBe(201);
    expect(await finalNotification(h, account.secretKey, sent.body.data.id)).toMatchObject({
      stats: { delivered: 0, failed: 1 },
    });
    const failures = await get(h.app, `/api/v1/notifications/${sent.body.data.id}/failures`, account.secretKey);
    expect(failures.body.data.map((failure: any) => failure.reason)).toEqual(['fcm:token_uri_refused']);
    expect(h.fcm.tokenRequests.filter((request) => request.claims?.iss === serviceAccount.json.client_email)).toEqual(
      [],
    );

    const app = await get(h.app, `/api/v1/apps/${appId}`, account.secretKey);
    expect(app.body.data.credentials).toMatchObject({ status: 'failing', error: 'fcm:token_uri_refused' });
    await waitFor(
      async () => (await listEvents(h.store.db, account.id)).some((event) => event.type === 'app.credentials_failed'),
      5_000,
      'app.credentials_failed',
    );
    const channel = await get(h.app, '/api/v1/channels/news', account.secretKey);
    expect(channel.body.data.subscriberCount).toMatchObject({ android: 1 });
  });

  it("leaves the instance's own service account file trusted", async () => {
    const account = await h.newAccount();
    await post(h.app, '/api/v1/channels', account.secretKey, { code: 'own' });
    await registerSubscriber(h, account.publishableKey, 'own', 'android', androidToken(7002));
    const sent = await post(h.app, '/api/v1/notifications', account.secretKey, { channelCode: 'own', title: 'Hello' });
    expect(await finalNotification(h, account.secretKey, sent.body.data.id)).toMatchObject({
      status: 'sent',
      stats: { delivered: 1, failed: 0 },
    });
  });
});
