// How the dashboard writes numbers and times: the reader's locale and time zone, with the exact UTC time on hover.

const numberFormat = new Intl.NumberFormat();
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatNumber(value) {
  return numberFormat.format(value);
}

export function formatPercent(part, whole) {
  if (!whole) return '0 %';
  const percent = (part / whole) * 100;
  // Floor, so 99.6 % never reads "100 %" while sends still go through; a first send reads "< 1 %", not "0 %".
  return part > 0 && percent < 1 ? '< 1 %' : `${Math.floor(percent)} %`;
}

/** "1 notification", "2 notifications". */
export function plural(count, word) {
  return `${numberFormat.format(count)} ${word}${count === 1 ? '' : 's'}`;
}

/** A <time> element for an ISO timestamp, or a dash for null. */
export function formatTime(iso, empty = '—') {
  if (!iso) return document.createTextNode(empty);
  const element = document.createElement('time');
  element.dateTime = iso;
  element.title = iso;
  element.textContent = dateTimeFormat.format(new Date(iso));
  return element;
}

export function formatTimeText(iso) {
  return iso ? dateTimeFormat.format(new Date(iso)) : '—';
}

/** "in 3 minutes" style wait, from seconds. */
export function formatWait(seconds) {
  if (seconds < 90) return `${seconds} seconds`;
  if (seconds < 5400) return `${Math.ceil(seconds / 60)} minutes`;
  return `${Math.ceil(seconds / 3600)} hours`;
}
