import { normalizeToken, type Platform } from '../../../domain/device-token.ts';
import type { FieldProblem } from '../../../domain/schema-errors.ts';

/**
 * `widgetPushToken` (POST /subscribers, PATCH /subscribers/{id}): the token WidgetKit gives an iOS 26 app for its widgets
 * (docs/protocols.md 2.6). An APNs token like the device's own, so held to the same rules (hex, lower-cased); only iOS
 * subscribers have one.
 */
export function widgetTokenOf(
  platform: Platform,
  value: string,
): { ok: true; token: string } | { ok: false; problems: FieldProblem[] } {
  if (platform !== 'ios')
    return {
      ok: false,
      problems: [{ field: 'widgetPushToken', message: 'only iOS subscribers have a widget push token' }],
    };
  const normalized = normalizeToken('ios', value, 'widgetPushToken');
  return normalized.ok ? { ok: true, token: normalized.value.token } : normalized;
}
