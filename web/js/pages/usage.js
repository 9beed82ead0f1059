import { api } from '../api.js';
import { append, h, table } from '../dom.js';
import { formatNumber, formatPercent, formatTime, formatTimeText } from '../format.js';
import { pageHeading } from '../layout.js';
import { dailyChart } from '../usage-chart.js';

/** The plans of docs/design.md 2.7 (src/domain/plans.ts): notifications per calendar month, UTC. */
const plans = [
  { id: 'free', name: 'Free', limit: 250 },
  { id: 'starter', name: 'Starter', limit: 2500 },
  { id: 'pro', name: 'Pro', limit: 10000 },
  { id: 'business', name: 'Business', limit: 50000 },
];

export async function usagePage({ container }) {
  pageHeading(container, 'Usage');
  const [usage, daily] = await Promise.all([api.get('/api/v1/usage'), api.get('/api/v1/usage/daily')]);
  const share = usage.limit > 0 ? Math.min(1, usage.used / usage.limit) : 1;
  const level = usage.used >= usage.limit ? 'full' : share >= 0.8 ? 'high' : 'ok';
  const planName = plans.find((plan) => plan.id === usage.plan)?.name ?? usage.plan;
  // The near/at-limit banner is the layout's, above every page (layout.js).
  append(
    container,
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'this-month' },
      h('h2', { id: 'this-month' }, 'This month'),
      h(
        'p',
        { id: 'quota-text' },
        h('strong', {}, `${formatNumber(usage.used)} of ${formatNumber(usage.limit)}`),
        ` notifications used (${formatPercent(usage.used, usage.limit)}) on the ${planName} plan.`,
      ),
      h(
        'div',
        {
          class: `quota-bar quota-${level}`,
          role: 'progressbar',
          'aria-labelledby': 'quota-text',
          'aria-valuemin': '0',
          'aria-valuemax': String(usage.limit),
          'aria-valuenow': String(Math.min(usage.used, usage.limit)),
          'aria-valuetext': `${formatNumber(usage.used)} of ${formatNumber(usage.limit)} notifications`,
        },
        h('div', { class: 'quota-fill', style: { width: `${(share * 100).toFixed(1)}%` } }),
      ),
      h(
        'p',
        { class: 'muted' },
        `${formatNumber(usage.remaining)} left. The count starts again at `,
        formatTime(usage.resetsAt),
        '. Every notification, scheduled or sent, and every Live Activity start, update and end counts one, however many devices it reaches.',
      ),
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'daily' },
      h('h2', { id: 'daily' }, 'Notifications per day'),
      // Drawn at the width it will be shown at, so its labels stay legible on a phone instead of being scaled down.
      dailyChart(daily.days, { width: Math.min(900, Math.max(300, container.clientWidth - 48)) }),
      h(
        'details',
        {},
        h('summary', {}, 'Show as a table'),
        table(
          'Notifications per day this month (UTC)',
          ['Day', 'Notifications'],
          daily.days.map((day) => [day.date, formatNumber(day.notifications)]),
          { rowHeaders: true },
        ),
      ),
    ),
    h(
      'section',
      { 'aria-labelledby': 'plans' },
      h('h2', { id: 'plans' }, 'Plans'),
      table(
        'Plans and their monthly notifications',
        ['Plan', 'Notifications a month', 'Yours'],
        plans.map((plan) => [
          plan.name,
          formatNumber(plan.limit),
          plan.id === usage.plan
            ? h(
                'strong',
                {},
                usage.limit === plan.limit ? 'Your plan' : `Your plan (your limit: ${formatNumber(usage.limit)})`,
              )
            : '',
        ]),
        { rowHeaders: true },
      ),
      h(
        'p',
        { class: 'muted' },
        `Plans are changed by the operator of this instance (clarion accounts set-plan). Quota periods are calendar months in UTC; this one ends ${formatTimeText(usage.resetsAt)}.`,
      ),
    ),
  );
}
