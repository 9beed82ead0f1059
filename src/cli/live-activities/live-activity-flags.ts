import { CliError, countOf } from '../cli-output.ts';

/** The flags `clarion live start` and `clarion live update` share. */
export interface AlertFlags {
  alertTitle?: string;
  alertBody?: string;
}

/** `--alert-title` / `--alert-body` into the request's `alert` (a body needs a title, as in the API). */
export function alertFrom(flags: AlertFlags): { alert?: { title: string; body?: string } } {
  if (flags.alertTitle === undefined) {
    if (flags.alertBody !== undefined) throw new CliError('--alert-body needs --alert-title', 'validation_failed');
    return {};
  }
  return { alert: { title: flags.alertTitle, ...(flags.alertBody !== undefined ? { body: flags.alertBody } : {}) } };
}

/**
 * One readable line about a Live Activity, after any of the commands: its status (`scheduled`, `active`, `ended`,
 * `canceled`), with the time a scheduled one starts instead of a recipient count, which is made when it starts.
 */
export function describeActivity(
  verb: string,
  activity: {
    id: string;
    template: string;
    status: string;
    recipientCount: number;
    sendAt: string | null;
    fields: Record<string, unknown>;
  },
): string {
  const reach =
    activity.status === 'scheduled' || activity.status === 'canceled'
      ? `starts ${activity.sendAt ?? 'later'}`
      : countOf(activity.recipientCount, 'subscriber');
  return `${verb} Live Activity ${activity.id} (${activity.template}, ${activity.status}, ${reach}): ${JSON.stringify(activity.fields)}`;
}
