import { readFileSync } from 'node:fs';
import { Check } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { buildApnsLiveActivityPayload } from '../../src/delivery/live-activities/apns-live-activity-payload.ts';
import {
  buildFcmLiveActivityData,
  fcmLiveActivityOptions,
} from '../../src/delivery/live-activities/fcm-live-activity-data.ts';
import { buildFcmDataMessage } from '../../src/delivery/fcm/fcm-message.ts';
import type { LiveActivityEvent, LiveActivityPush } from '../../src/delivery/live-activities/live-activity-push.ts';
import { LiveActivitySchema } from '../../src/http/endpoints/live-activities/live-activity-view.ts';
import {
  templateAttributesTypes,
  templateNames,
  templateSchemas,
  type TemplateName,
} from '../../src/domain/live-activities/live-activity-templates.ts';

/**
 * docs/live-activities.md is what app developers copy: its payloads must be what the builders produce, and its Swift
 * types must decode them (same type names, same field names, optional exactly where the schema is).
 */
const doc = readFileSync(new URL('../../docs/live-activities.md', import.meta.url), 'utf8');
const blocks = (language: string) =>
  [...doc.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]!);

describe('docs/live-activities.md', () => {
  it('shows the APNs payload of each event exactly as the builder makes it', () => {
    const payloads = blocks('json')
      .map((text) => JSON.parse(text) as { aps: Record<string, any> })
      .filter((payload) => payload.aps !== undefined);
    expect(payloads.map((payload) => payload.aps.event)).toEqual(['start', 'update', 'end']);
    const start = payloads[0]!.aps;
    for (const { aps } of payloads) {
      const push: LiveActivityPush = {
        activityId: start.attributes.activityId,
        template: 'progress',
        event: aps.event as LiveActivityEvent,
        timestamp: aps.timestamp * 1000,
        fields: aps['content-state'],
        alert: aps.alert ?? null,
        staleAt: aps['stale-date'] === undefined ? null : aps['stale-date'] * 1000,
        dismissAt: aps['dismissal-date'] === undefined ? null : aps['dismissal-date'] * 1000,
        relevanceScore: aps['relevance-score'] ?? null,
        priority: null,
        expiresAt: start.timestamp * 1000 + 8 * 3600_000,
      };
      expect(buildApnsLiveActivityPayload(push)).toEqual({ aps });
    }
  });

  it('shows the Android message exactly as the builder makes it, sent when its event was made', () => {
    const message = blocks('json')
      .map((text) => JSON.parse(text) as { message?: { data: Record<string, string> } })
      .find((item) => item.message)!.message!;
    const data = message.data;
    const start = blocks('json')
      .map((text) => JSON.parse(text) as { aps?: Record<string, any> })
      .find((payload) => payload.aps?.event === 'start')!.aps!;
    const push: LiveActivityPush = {
      activityId: data.activityId!,
      template: data.template as TemplateName,
      event: data.event as LiveActivityEvent,
      timestamp: Number(data.timestamp),
      fields: JSON.parse(data.fields!),
      alert: data.alert ? JSON.parse(data.alert) : null,
      staleAt: null,
      dismissAt: null,
      relevanceScore: null,
      priority: null,
      expiresAt: start.timestamp * 1000 + 8 * 3600_000,
    };
    expect(buildFcmLiveActivityData(push)).toEqual(data);
    expect(message).toEqual(
      buildFcmDataMessage('<FCM token>', data, fcmLiveActivityOptions(push), push.timestamp).message,
    );
  });

  it('shows a lastEvent the LiveActivity schema accepts, whose counts add up', () => {
    const example = blocks('json')
      .map((text) => JSON.parse(text) as Record<string, any>)
      .find((item) => item.byMode)!;
    const lastEvent = LiveActivitySchema.properties.lastEvent;
    expect(Check(lastEvent, example)).toBe(true);
    const adds = (counts: Record<string, number>) =>
      counts.targeted === counts.delivered! + counts.failed! + counts.skipped! + counts.pending!;
    for (const counts of [example, ...Object.values(example.byMode), ...Object.values(example.byPlatform)])
      expect(adds(counts as Record<string, number>)).toBe(true);
    const sum = (group: Record<string, Record<string, number>>) =>
      Object.values(group).reduce((total, counts) => total + counts.targeted!, 0);
    expect([sum(example.byMode), sum(example.byPlatform)]).toEqual([example.targeted, example.targeted]);
  });

  it("declares each template's ActivityAttributes with the published name and the schema's fields", () => {
    const swift = blocks('swift').join('\n');
    // An object member is a nested struct (score's Team); a list of objects, an array of the struct nested in the
    // ContentState (metrics' [Metric]), whose own members are checked against the list's items.
    const swiftTypes: Record<string, string> = {
      string: 'String',
      number: 'Double',
      integer: 'Int',
      object: 'Team',
      array: '[Metric]',
    };
    interface ObjectSchema {
      properties: Record<string, { type: string; items?: ObjectSchema }>;
      required?: string[];
    }
    /** `var name: Type` lines at `indent` spaces: stored properties only (a computed `var endDate: Date? {` is not). */
    const storedProperties = (text: string, indent: number) =>
      Object.fromEntries(
        [...text.matchAll(new RegExp(`^ {${indent}}var (\\w+): (\\[?\\w+\\]?)(\\?)?[ \\t]*(?:\\/\\/.*)?$`, 'gm'))].map(
          (match) => [match[1], `${match[2]}${match[3] ?? ''}`],
        ),
      );
    const expectedProperties = (schema: ObjectSchema) =>
      Object.fromEntries(
        Object.entries(schema.properties)
          // A timer's durationSeconds is never sent: it is stored as endsAt.
          .filter(([field]) => field !== 'durationSeconds')
          .map(([field, property]) => [
            field,
            `${swiftTypes[property.type]}${schema.required?.includes(field) || field === 'endsAt' ? '' : '?'}`,
          ]),
      );
    for (const template of templateNames) {
      const name = templateAttributesTypes[template];
      const body = new RegExp(`struct ${name}: ActivityAttributes \\{([\\s\\S]*?)\\n\\}`).exec(swift)?.[1];
      expect(body, `struct ${name}`).toBeDefined();
      const state = /struct ContentState: Codable, Hashable \{([\s\S]*?)\n {4}\}/.exec(body!)![1]!;
      const schema = templateSchemas[template] as unknown as ObjectSchema;
      // Every ContentState also declares the receipt its pushes with an alert carry (docs/engagement.md).
      expect(storedProperties(state, 8), name).toEqual({ ...expectedProperties(schema), clarionReceipt: 'String?' });
      expect(body, name).toMatch(/^ {4}var activityId: String/m);
      for (const property of Object.values(schema.properties).filter((property) => property.type === 'array')) {
        const item = /^ {8}public struct Metric: Codable, Hashable \{([\s\S]*?)\n {8}\}/m.exec(state)?.[1];
        expect(item, `${name}.ContentState.Metric`).toBeDefined();
        expect(storedProperties(item!, 12), `${name}.ContentState.Metric`).toEqual(expectedProperties(property.items!));
      }
    }
  });
});
