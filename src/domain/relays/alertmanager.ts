import { createHash } from 'node:crypto';
import Type, { type Static } from 'typebox';
import { clip, type RelayStep } from './relay-step.ts';

/**
 * Prometheus Alertmanager's webhook (webhook_config, payload version 4:
 * https://prometheus.io/docs/alerting/latest/configuration/#webhook_config). Only what Clarion reads is required;
 * everything else Alertmanager sends (receiver, groupLabels, commonLabels, externalURL, truncatedAlerts, …) is
 * accepted and ignored, so a newer Alertmanager that adds members still gets through.
 */
const Labels = Type.Record(Type.String(), Type.String());

const AlertmanagerAlert = Type.Object({
  status: Type.Union([Type.Literal('firing'), Type.Literal('resolved')]),
  labels: Labels,
  annotations: Type.Optional(Labels),
  fingerprint: Type.Optional(Type.String()),
});

/** The most alerts one webhook may carry: each drives an activity. Alertmanager's `max_alerts` sets it (docs). */
export const ALERTMANAGER_MAX_ALERTS = 100;

export const AlertmanagerWebhook = Type.Object(
  {
    version: Type.Optional(Type.String()),
    status: Type.Optional(Type.String()),
    alerts: Type.Array(AlertmanagerAlert, {
      maxItems: ALERTMANAGER_MAX_ALERTS,
      hint: `must be Alertmanager's list of alerts, at most ${ALERTMANAGER_MAX_ALERTS} (set max_alerts: ${ALERTMANAGER_MAX_ALERTS} in its webhook_config)`,
    }),
  },
  { additionalProperties: true, title: 'AlertmanagerWebhook' },
);

export type AlertmanagerAlert = Static<typeof AlertmanagerAlert>;

/** Severity label values that mean the service is failing; every other firing alert is a warning. */
const ERROR_SEVERITIES = new Set(['critical', 'error', 'page', 'high', 'fatal', 'emergency']);

/**
 * One alert as a `status` activity keyed by its fingerprint: firing starts it (again, after a resolution) or updates
 * it, with the state from its `severity` label (critical, error, page, high, fatal, emergency → error; anything else
 * → warning); resolved ends it as `ok`. The title is the alert's name and instance, the message its `summary`
 * annotation, else its `description`.
 */
export function alertStep(alert: AlertmanagerAlert): RelayStep {
  const key = `alertmanager-${fingerprintOf(alert)}`;
  const title = clip([alert.labels.alertname ?? 'Alert', alert.labels.instance].filter(Boolean).join(' · '), 100);
  const summary = alert.annotations?.summary ?? alert.annotations?.description ?? '';
  if (alert.status === 'resolved') {
    const message = clip(summary === '' ? 'Resolved' : `Resolved: ${summary}`, 200);
    return { key, start: null, startOnce: false, change: { event: 'end', fields: { state: 'ok', message } } };
  }
  const severity = (alert.labels.severity ?? '').toLowerCase();
  const fields = {
    title,
    state: ERROR_SEVERITIES.has(severity) ? 'error' : 'warning',
    ...(summary === '' ? {} : { message: clip(summary, 200) }),
  };
  return {
    key,
    start: { template: 'status', fields },
    startOnce: false,
    change: { event: 'update', fields: { ...fields, message: fields.message ?? null } },
  };
}

/**
 * The alert's identity across webhooks: Alertmanager's `fingerprint` (a hash of its labels, 16 hex digits), or, from
 * an Alertmanager too old to send one, the same kind of hash made here from the sorted labels.
 */
function fingerprintOf(alert: AlertmanagerAlert): string {
  if (alert.fingerprint !== undefined && /^[0-9a-f]{1,64}$/i.test(alert.fingerprint))
    return alert.fingerprint.toLowerCase();
  const labels = Object.keys(alert.labels)
    .sort()
    .map((name) => [name, alert.labels[name]]);
  return createHash('sha256').update(JSON.stringify(labels)).digest('hex').slice(0, 16);
}
