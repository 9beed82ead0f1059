import { h } from './dom.js';

/**
 * A Live Activity as a lock screen would show it, from its template and current fields (docs/design.md 2.5). The timer
 * counts down in the page; call the returned `tick` every second to move it (it is a no-op for other templates).
 */
export function activityPreview(activity) {
  const { fields } = activity;
  const ended = activity.status === 'ended';
  const card = h('div', { class: `lock-screen template-${activity.template}${ended ? ' ended' : ''}` });
  let tick = () => {};
  const title = h('p', { class: 'la-title' }, String(fields.title ?? ''));
  const status = fields.status ? h('p', { class: 'la-status' }, String(fields.status)) : null;

  if (activity.template === 'progress') {
    const percent = Math.round(Number(fields.progress ?? 0) * 100);
    card.append(
      title,
      h(
        'div',
        {
          class: 'la-bar',
          role: 'progressbar',
          'aria-label': `${fields.title ?? 'Progress'}`,
          'aria-valuemin': '0',
          'aria-valuemax': '100',
          'aria-valuenow': String(percent),
          'aria-valuetext': `${percent} %`,
        },
        h('div', { class: 'la-fill', style: { width: `${percent}%` } }),
      ),
      h('p', { class: 'la-figure' }, `${percent} %`),
    );
  } else if (activity.template === 'timer') {
    const remaining = h('p', { class: 'la-figure la-timer', role: 'timer', 'aria-live': 'off' });
    tick = () => {
      remaining.textContent = ended ? 'Ended' : countdown(Date.parse(String(fields.endsAt)) - Date.now());
    };
    tick();
    card.append(title, remaining);
  } else if (activity.template === 'score') {
    const home = fields.home ?? {};
    const away = fields.away ?? {};
    card.append(
      title,
      h(
        'p',
        { class: 'la-score', 'aria-label': `${home.name} ${home.score}, ${away.name} ${away.score}` },
        h('span', { class: 'la-team' }, String(home.name ?? '')),
        h('span', { class: 'la-figure' }, `${home.score ?? 0} – ${away.score ?? 0}`),
        h('span', { class: 'la-team' }, String(away.name ?? '')),
      ),
    );
    // Not appended as null: Element.append() would write the text "null".
    if (fields.period) card.append(h('p', { class: 'la-period' }, String(fields.period)));
  } else if (activity.template === 'steps') {
    const total = Number(fields.totalSteps ?? 1);
    const current = Number(fields.currentStep ?? 1);
    card.append(
      title,
      h('p', { class: 'la-figure' }, `Step ${current} of ${total}`),
      h(
        'ol',
        { class: 'la-steps', 'aria-hidden': 'true' },
        Array.from({ length: total }, (_, index) =>
          h('li', { class: index + 1 < current ? 'done' : index + 1 === current ? 'current' : '' }),
        ),
      ),
    );
  } else if (activity.template === 'metrics') {
    const metrics = Array.isArray(fields.metrics) ? fields.metrics : [];
    card.append(
      title,
      h(
        'dl',
        { class: 'la-metrics' },
        metrics.map((metric) =>
          h(
            'div',
            { class: 'la-metric' },
            h('dt', {}, String(metric?.label ?? '')),
            h(
              'dd',
              { class: 'la-figure' },
              [metric?.value, metric?.unit].filter((part) => part !== undefined && part !== '').join(' '),
              TRENDS[metric?.trend]
                ? h(
                    'span',
                    { class: `la-trend trend-${metric.trend}`, 'aria-label': TRENDS[metric.trend].label },
                    ` ${TRENDS[metric.trend].arrow}`,
                  )
                : [],
            ),
          ),
        ),
      ),
    );
  } else if (activity.template === 'status') {
    const state = STATES[fields.state] ? fields.state : 'pending';
    card.append(
      title,
      h(
        'p',
        { class: `la-state state-${state}` },
        h('span', { class: 'la-dot', 'aria-hidden': 'true' }),
        STATES[state],
      ),
    );
    if (fields.message) card.append(h('p', { class: 'la-status' }, String(fields.message)));
  } else {
    card.append(title, h('pre', {}, JSON.stringify(fields, null, 2)));
  }
  if (status) card.append(status);
  return { element: card, tick };
}

/** A metric's trend as the arrow the one-line text uses (src/domain/live-activities/live-activity-text.ts). */
const TRENDS = {
  up: { arrow: '↑', label: 'going up' },
  down: { arrow: '↓', label: 'going down' },
  flat: { arrow: '→', label: 'steady' },
};

/** A status activity's state in words; its colour is the stylesheet's (.state-ok …, docs/live-activities.md). */
const STATES = { ok: 'OK', warning: 'Warning', error: 'Error', pending: 'Pending' };

/** "1:05:09" / "4:07" until zero, then "0:00". */
function countdown(ms) {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = String(seconds % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}
