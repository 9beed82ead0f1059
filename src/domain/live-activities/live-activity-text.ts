import type { MetricTrend, StatusState, TemplateFields, TemplateName } from './live-activity-templates.ts';

/** Where a reader is, for a timer's end time: their IANA zone and language (a subscriber's `timezone`, `locale`). */
export interface ReaderPlace {
  timeZone: string | null;
  locale: string | null;
}

/**
 * A Live Activity's fields as one line of text: "45 % · Packing", "Ajax 2 – 1 PSV (2nd half)", "Step 2 of 4 · On
 * the way", "CPU 72 % ↑ · Errors 3 · Packing" (each metric as label, value, unit and trend arrow, then the status),
 * "Error · Disk full on db-2" (a status activity's state, then its message), and for a timer "Ends at 14:30 ·
 * Boarding" in the reader's zone, or without one the status (or "Countdown started"), since an end time in the wrong
 * zone would mislead. Pure; `fields` are already validated.
 * Used for the alert a start carries by default (live-activity-alert.ts) and for the notification browsers show
 * (src/delivery/live-activities/web-live-activity-message.ts).
 */
export function liveActivityStateText(
  template: TemplateName,
  fields: TemplateFields,
  place: ReaderPlace | null = null,
): string {
  const status = typeof fields.status === 'string' && fields.status !== '' ? fields.status : null;
  const withStatus = (line: string) => (status ? `${line} · ${status}` : line);
  switch (template) {
    case 'progress':
      return withStatus(`${Math.round(Number(fields.progress) * 100)} %`);
    case 'timer':
      return place ? withStatus(`Ends at ${clockTime(String(fields.endsAt), place)}`) : (status ?? 'Countdown started');
    case 'score': {
      const home = fields.home as { name: string; score: number };
      const away = fields.away as { name: string; score: number };
      const period = typeof fields.period === 'string' && fields.period !== '' ? ` (${fields.period})` : '';
      return `${home.name} ${home.score} – ${away.score} ${away.name}${period}`;
    }
    case 'steps':
      return withStatus(`Step ${Number(fields.currentStep)} of ${Number(fields.totalSteps)}`);
    case 'metrics':
      return withStatus((fields.metrics as Metric[]).map(metricText).join(' · '));
    case 'status': {
      const message = typeof fields.message === 'string' && fields.message !== '' ? fields.message : null;
      const state = stateWords[fields.state as StatusState];
      return message ? `${state} · ${message}` : state;
    }
  }
}

interface Metric {
  label: string;
  value: number;
  unit?: string;
  trend?: MetricTrend;
}

/** How a `status` activity's state reads. */
const stateWords: Readonly<Record<StatusState, string>> = {
  ok: 'OK',
  warning: 'Warning',
  error: 'Error',
  pending: 'Pending',
};

const trendArrows: Readonly<Record<MetricTrend, string>> = { up: '↑', down: '↓', flat: '→' };

/** "CPU 72 % ↑": the label, the value as sent, the unit and the trend's arrow when given, a space between each. */
function metricText(metric: Metric): string {
  return [metric.label, String(metric.value), metric.unit, metric.trend && trendArrows[metric.trend]]
    .filter((part) => part !== undefined && part !== '')
    .join(' ');
}

/** "14:30" in the reader's zone and language; "14:30 UTC" when the zone is unknown. */
export function clockTime(iso: string, place: ReaderPlace): string {
  const options: Intl.DateTimeFormatOptions = {
    hour: '2-digit',
    minute: '2-digit',
    timeZone: place.timeZone ?? 'UTC',
    ...(place.timeZone ? {} : { timeZoneName: 'short' }),
  };
  try {
    return new Intl.DateTimeFormat(place.locale ?? 'en-GB', options).format(new Date(iso));
  } catch {
    // Both were checked at registration; a runtime without that zone or language still says something true.
    return new Intl.DateTimeFormat('en-GB', {
      hour: '2-digit',
      minute: '2-digit',
      timeZone: 'UTC',
      timeZoneName: 'short',
    }).format(new Date(iso));
  }
}
