import type { TemplateFields, TemplateName } from './live-activity-templates.ts';

/** Where a reader is, for a timer's end time: their IANA zone and language (a subscriber's `timezone`, `locale`). */
export interface ReaderPlace {
  timeZone: string | null;
  locale: string | null;
}

/**
 * A Live Activity's fields as one line of text: "45 % · Packing", "Ajax 2 – 1 PSV (2nd half)", "Step 2 of 4 · On
 * the way", and for a timer "Ends at 14:30 · Boarding" in the reader's zone, or without one the status (or
 * "Countdown started"), since an end time in the wrong zone would mislead. Pure; `fields` are already validated.
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
  }
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
