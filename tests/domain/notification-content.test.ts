import { describe, expect, it } from 'vitest';
import {
  contentAsStored,
  contentColumnNames,
  contentFromColumns,
  contentProblems,
  contentRequestProperties,
  contentToColumns,
  contentViewProperties,
  isReservedFcmDataKey,
  type RequestedContent,
} from '../../src/domain/notification-content.ts';

const everyField: Required<RequestedContent> = {
  title: 'Order shipped',
  body: 'Arrives Tuesday',
  url: 'https://example.com/orders/42',
  data: { orderId: '42' },
  imageUrl: 'https://example.com/parcel.png',
  iconUrl: 'https://example.com/icon.png',
  sound: 'default',
  badge: 3,
  priority: 'normal',
  subtitle: 'Via DHL',
  category: 'ORDER_SHIPPED',
  interruptionLevel: 'time-sensitive',
  relevanceScore: 0.7,
  targetContentId: 'orders',
  androidChannelId: 'shipping',
  localizations: {
    de: { title: 'Bestellung versandt', body: 'Kommt Dienstag' },
    'fr-CA': { title: 'Commande expédiée' },
  },
  actions: [
    { id: 'track', title: 'Track', url: 'https://example.com/orders/42/track' },
    { id: 'received', title: 'I have it' },
  ],
  contentAvailable: false,
  ignoreFrequencyCap: true,
  ignoreQuietHours: true,
  throttlePerMinute: 10_000,
  ttlSeconds: 600,
};

describe('the notification content model', () => {
  it('stores every field in its own column and reads each back as it was given', () => {
    const columns = contentToColumns(everyField);
    expect(Object.keys(columns).sort()).toEqual([...contentColumnNames].sort());
    expect(columns).toMatchObject({ image_url: everyField.imageUrl, icon_url: everyField.iconUrl, ttl_seconds: 600 });
    expect(columns.data).toBe('{"orderId":"42"}');
    expect(contentFromColumns(columns)).toEqual(everyField);
  });

  it('stores an absent field as null, and an absent priority as high', () => {
    const stored = contentAsStored({ body: 'Hi' });
    expect(stored.priority).toBe('high');
    expect(Object.entries(stored).filter(([, value]) => value !== null)).toEqual([
      ['body', 'Hi'],
      ['priority', 'high'],
      ['contentAvailable', false],
      ['ignoreFrequencyCap', false],
      ['ignoreQuietHours', false],
    ]);
  });

  it('gives the request body and the view one property per field, the same fields', () => {
    expect(Object.keys(contentRequestProperties)).toEqual(Object.keys(everyField));
    expect(Object.keys(contentViewProperties)).toEqual(Object.keys(everyField));
  });

  it('names what a schema cannot: a missing title and body, URL schemes, reserved data keys', () => {
    expect(contentProblems(everyField)).toEqual([]);
    expect(
      contentProblems({
        url: 'ftp://example.com/x',
        imageUrl: 'http://example.com/a.png',
        iconUrl: 'https://',
        data: { from: 'x', clarion: 'y', fine: 'z' },
      }).map((problem) => problem.field),
    ).toEqual(['title', 'url', 'data.from', 'data.clarion', 'imageUrl', 'iconUrl']);
  });

  it('stores localizations under canonical tags, and names a bad tag, two tags of one language and an empty variant', () => {
    expect(contentToColumns({ title: 'Hi', localizations: { 'en-gb': { title: 'Hello' } } }).localizations).toBe(
      '{"en-GB":{"title":"Hello"}}',
    );
    expect(
      contentProblems({
        title: 'Hi',
        localizations: { 'not a tag': { title: 'x' }, de: { title: 'Hallo' }, DE: { body: 'Hallo' }, fr: {} },
      }).map((problem) => `${problem.field}: ${problem.message}`),
    ).toEqual([
      'localizations.not a tag: must be keyed by a BCP 47 language tag, like de or fr-CA',
      'localizations.DE: names the same language as de',
      'localizations.fr: needs a title, a body or both',
    ]);
  });

  it('names an action id used twice and an action url that is not http(s), by their place in the list', () => {
    expect(
      contentProblems({
        title: 'Deploy v42?',
        actions: [
          { id: 'approve', title: 'Approve' },
          { id: 'approve', title: 'Approve again' },
          { id: 'logs', title: 'Logs', url: 'javascript:alert(1)' },
        ],
      }),
    ).toEqual([
      { field: 'actions.1.id', message: 'is the id of an earlier action: each needs its own' },
      { field: 'actions.2.url', message: 'must be an absolute http(s) URL' },
    ]);
    expect(contentToColumns({ title: 'x', actions: [{ id: 'a', title: 'A' }] }).actions).toBe(
      '[{"id":"a","title":"A"}]',
    );
  });

  it('takes a silent push without a title or body, and refuses on it every field that would show something', () => {
    expect(contentProblems({ contentAvailable: true })).toEqual([]);
    expect(contentProblems({ contentAvailable: true, data: { sync: 'inbox' }, url: 'https://example.com/x' })).toEqual(
      [],
    );
    const {
      contentAvailable: _silent,
      ignoreFrequencyCap: _ignore,
      ignoreQuietHours: _quiet,
      throttlePerMinute: _throttle,
      data: _data,
      url: _url,
      priority: _priority,
      ttlSeconds: _ttl,
      ...shown
    } = everyField;
    expect(contentProblems({ ...everyField, contentAvailable: true }).map((problem) => problem.field)).toEqual(
      Object.keys(shown),
    );
    expect(contentProblems({ contentAvailable: false })[0]?.field).toBe('title');
  });
});

describe('isReservedFcmDataKey', () => {
  it.each([
    ['from', true],
    ['message_type', true],
    ['google.sent_time', true],
    ['GCM_x', true],
    ['url', false],
    ['fromage', false],
  ] as const)('%s → %s', (key, reserved) => {
    expect(isReservedFcmDataKey(key)).toBe(reserved);
  });
});
