import type { TemplateFields, TemplateName } from './live-activity-templates.ts';

/** The alert of a Live Activity push (APNs `aps.alert`, docs/protocols.md 2.2): title, and an optional body. */
export interface LiveActivityAlert {
  title: string;
  body?: string;
}

/**
 * The alert a start carries when the caller gave none. APNs requires one on `event: start` (docs/protocols.md 2.2), and
 * it is what the user sees when the activity appears, so it says the same as the activity: its title, and a line
 * summing up the fields ("45 % · Packing", "Ajax 2 – 1 PSV (2nd half)", "Step 2 of 4 · On the way").
 * Pure; `fields` are already validated.
 */
export function defaultStartAlert(template: TemplateName, fields: TemplateFields): LiveActivityAlert {
  const title = String(fields.title);
  const status = typeof fields.status === 'string' && fields.status !== '' ? fields.status : null;
  const withStatus = (line: string) => (status ? `${line} · ${status}` : line);
  switch (template) {
    case 'progress':
      return { title, body: withStatus(`${Math.round(Number(fields.progress) * 100)} %`) };
    case 'timer':
      // The device's time zone is unknown here, so the end time is left to the activity's own countdown.
      return { title, body: status ?? 'Countdown started' };
    case 'score': {
      const home = fields.home as { name: string; score: number };
      const away = fields.away as { name: string; score: number };
      const period = typeof fields.period === 'string' && fields.period !== '' ? ` (${fields.period})` : '';
      return { title, body: `${home.name} ${home.score} – ${away.score} ${away.name}${period}` };
    }
    case 'steps':
      return { title, body: withStatus(`Step ${Number(fields.currentStep)} of ${Number(fields.totalSteps)}`) };
  }
}
