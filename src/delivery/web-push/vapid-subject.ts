import { ConfigError, type Config } from '../../config/load-config.ts';

/**
 * The VAPID `sub` claim (RFC 8292 §2.1, https://www.rfc-editor.org/rfc/rfc8292#section-2.1): a contact for the push
 * service, a `mailto:` or `https:` URL. Apple's service is the strict one: it answers `403 {"reason":"BadJwtToken"}`
 * when "the JWT subject claim isn't a URL or mailto:"
 * (https://developer.apple.com/documentation/usernotifications/sending-web-push-notifications-in-web-apps-and-browsers),
 * which is what `mailto: <admin@example.com>` gets (a URL holds no spaces or angle brackets, RFC 3986 §2), and so does
 * a localhost contact; FCM and Mozilla take both. A subject Apple refuses fails every push to Safari and iOS while the
 * other browsers work, so a subject the operator or an app chose is checked here, before anything is sent.
 */

/** Why push services would refuse `subject`, or null when it is fine. Pure. */
export function vapidSubjectProblem(subject: string): string | null {
  if (!/^(mailto:.+|https:\/\/.+)$/.test(subject)) return 'must be a mailto: or https: URL';
  if (/[\s<>]/.test(subject))
    return 'must be a bare mailto: or https: URL, no spaces or angle brackets, e.g. mailto:ops@example.com';
  if (subject.startsWith('https:') && !URL.canParse(subject)) return 'must be a valid https: URL';
  if (onLocalhost(subject))
    return "must name a contact push services can reach, not localhost: Apple's push service refuses it (Safari and iOS would get no pushes)";
  return null;
}

/** Whether the subject's host is this machine (localhost, *.localhost, 127.0.0.0/8, ::1): nobody can reach it. */
export function onLocalhost(subject: string): boolean {
  const host = subject.startsWith('mailto:')
    ? subject.slice(subject.lastIndexOf('@') + 1)
    : URL.canParse(subject)
      ? new URL(subject).hostname
      : '';
  return /^(localhost|.+\.localhost|127(\.\d{1,3}){3}|\[::1\])$/i.test(host);
}

/**
 * The instance's subject: CLARION_VAPID_SUBJECT, refused at start (ConfigError, one line naming it) when push services
 * would refuse it; else the base URL when it is https (a contact page), else mailto:webpush@<host>. A subject derived
 * from a localhost base URL (the default, for trying Clarion out) is not refused: the start warns and the dashboard
 * says Safari will refuse it (localhostSubjectWarning).
 */
export function vapidSubject(config: Pick<Config, 'vapidSubject' | 'baseUrl'>): string {
  if (config.vapidSubject) {
    const problem = vapidSubjectProblem(config.vapidSubject);
    if (problem !== null) throw new ConfigError(`CLARION_VAPID_SUBJECT: ${problem} (got "${config.vapidSubject}")`);
    return config.vapidSubject;
  }
  const base = new URL(config.baseUrl);
  return base.protocol === 'https:' ? base.origin : `mailto:webpush@${base.hostname}`;
}

/** What to tell the operator about a subject on localhost (start-up log, dashboard), or null when there is nothing to say. */
export function localhostSubjectWarning(subject: string): string | null {
  if (!onLocalhost(subject)) return null;
  return `Apple's push service refuses a localhost VAPID subject (${subject}, from CLARION_BASE_URL): Safari and iOS browsers will get no pushes until CLARION_VAPID_SUBJECT (mailto: or https:) or a public CLARION_BASE_URL is set`;
}
