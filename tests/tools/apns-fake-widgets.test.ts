import { describe, expect, it } from 'vitest';
import { checkWidgetPayload } from '../../tools/fakes/apns/apns-widgets.ts';
import { BUNDLE, DEVICE, apnsFixture } from './apns-fixture.ts';

const WIDGET_TOKEN = 'e5'.repeat(32);
const widgets = { 'apns-push-type': 'widgets', 'apns-topic': `${BUNDLE}.push-type.widgets`, 'apns-priority': '5' };
const CONTENT_CHANGED = JSON.stringify({ aps: { 'content-changed': true } });

describe('fake APNs: WidgetKit pushes', () => {
  it('accepts a widgets push with the .push-type.widgets topic and content-changed, and the device reloads', async () => {
    const { push, apns } = await apnsFixture();
    const answer = await push(WIDGET_TOKEN, { ...widgets, 'apns-expiration': '0' }, CONTENT_CHANGED);
    expect(answer.status).toBe(200);
    expect(apns.widgetReloads.forToken(WIDGET_TOKEN)).toEqual([
      expect.objectContaining({ token: WIDGET_TOKEN, bundleId: BUNDLE, priority: 5, expiration: 0 }),
    ]);
    expect(apns.widgetReloads.forToken(DEVICE)).toEqual([]);
  });

  it.each([
    ['the bare bundle id', BUNDLE],
    ['the Live Activity topic', `${BUNDLE}.push-type.liveactivity`],
    ['a misspelt suffix', `${BUNDLE}.push-type.widget`],
  ])('refuses the widgets push type on %s (400 TopicDisallowed)', async (_name, topic) => {
    const { push, apns } = await apnsFixture();
    const answer = await push(WIDGET_TOKEN, { ...widgets, 'apns-topic': topic }, CONTENT_CHANGED);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({ reason: 'TopicDisallowed' });
    expect(apns.widgetReloads.reloads).toEqual([]);
  });

  it('refuses an alert push aimed at the widgets topic (400 TopicDisallowed)', async () => {
    const { push } = await apnsFixture();
    const answer = await push(WIDGET_TOKEN, { ...widgets, 'apns-push-type': 'alert' }, CONTENT_CHANGED);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({ reason: 'TopicDisallowed' });
  });

  it.each([
    ['no content-changed', { aps: {} }],
    ['content-changed not true', { aps: { 'content-changed': 1 } }],
    ['an alert beside it', { aps: { 'content-changed': true, alert: { title: 'Hi' } } }],
    ['a sound beside it', { aps: { 'content-changed': true, sound: 'default' } }],
    ['a badge beside it', { aps: { 'content-changed': true, badge: 1 } }],
    ['content-available beside it', { aps: { 'content-changed': true, 'content-available': 1 } }],
    ['no aps at all', { 'content-changed': true }],
  ])('refuses a widgets payload with %s (400 BadPayload), and the device does not reload', async (_name, body) => {
    const { push, apns } = await apnsFixture();
    const answer = await push(WIDGET_TOKEN, widgets, JSON.stringify(body));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({ reason: 'BadPayload' });
    expect(apns.widgetReloads.reloads).toEqual([]);
  });

  it('answers a dead widget token 410 Unregistered, and nothing reloads', async () => {
    const { push, apns } = await apnsFixture();
    apns.unregisterToken(WIDGET_TOKEN, 1_700_000_000_000);
    const answer = await push(WIDGET_TOKEN, widgets, CONTENT_CHANGED);
    expect(answer.status).toBe(410);
    expect(JSON.parse(answer.body)).toMatchObject({ reason: 'Unregistered' });
    expect(apns.widgetReloads.reloads).toEqual([]);
  });

  it('the payload rule as a table: custom keys beside aps are fine', () => {
    expect(checkWidgetPayload({ aps: { 'content-changed': true } }).ok).toBe(true);
    expect(checkWidgetPayload({ aps: { 'content-changed': true }, board: 'today' }).ok).toBe(true);
    expect(checkWidgetPayload({ aps: [] }).ok).toBe(false);
  });
});
