import { h, svg } from './dom.js';
import { formatNumber, plural } from './format.js';

/**
 * Daily sends as an inline SVG bar chart: no charting library (none is installed, and 60 lines draw 31 bars). The
 * chart is an image with a summary for screen readers; the same numbers are in a table under it.
 */
export function dailyChart(days, { width = 640, height = 200 } = {}) {
  const padding = { top: 12, right: 8, bottom: 28, left: 40 };
  const innerWidth = width - padding.left - padding.right;
  const innerHeight = height - padding.top - padding.bottom;
  const max = Math.max(1, ...days.map((day) => day.notifications));
  const top = niceCeiling(max);
  const slot = innerWidth / Math.max(days.length, 1);
  const barWidth = Math.max(2, slot * 0.7);
  const total = days.reduce((sum, day) => sum + day.notifications, 0);
  const busiest = days.reduce((best, day) => (day.notifications > (best?.notifications ?? -1) ? day : best), null);
  const summary = `${plural(total, 'notification')} this month over ${plural(days.length, 'day')}${busiest && busiest.notifications > 0 ? `; the busiest day was ${busiest.date} with ${formatNumber(busiest.notifications)}` : ''}.`;

  const y = (value) => padding.top + innerHeight - (value / top) * innerHeight;
  const grid = [0, top / 2, top].map((value) =>
    svg(
      'g',
      { class: 'grid' },
      svg('line', { x1: padding.left, x2: width - padding.right, y1: y(value), y2: y(value) }),
      svg('text', { x: padding.left - 6, y: y(value) + 4, 'text-anchor': 'end' }, formatNumber(value)),
    ),
  );
  // Label every day when there is room for it, else every fifth.
  const labelEvery = slot >= 22 ? 1 : 5;
  const bars = days.map((day, index) => {
    const x = padding.left + index * slot + (slot - barWidth) / 2;
    const barHeight = (day.notifications / top) * innerHeight;
    return svg(
      'g',
      {},
      svg(
        'rect',
        {
          class: 'bar',
          x,
          y: padding.top + innerHeight - barHeight,
          width: barWidth,
          height: Math.max(barHeight, day.notifications > 0 ? 1 : 0),
        },
        svg('title', {}, `${day.date}: ${formatNumber(day.notifications)}`),
      ),
      // Today is always labelled; a regular label too close before it would overlap it.
      (index % labelEvery === 0 && days.length - 1 - index >= Math.min(labelEvery, 3)) || index === days.length - 1
        ? svg('text', { x: x + barWidth / 2, y: height - 8, 'text-anchor': 'middle' }, day.date.slice(8))
        : null,
    );
  });
  return h(
    'figure',
    { class: 'chart' },
    svg(
      'svg',
      {
        viewBox: `0 0 ${width} ${height}`,
        role: 'img',
        'aria-label': `Daily notifications. ${summary}`,
        preserveAspectRatio: 'xMidYMid meet',
      },
      grid,
      bars,
    ),
    h('figcaption', {}, summary),
  );
}

/** 1, 2, 5 × 10^n at or above `value`, so the axis has round numbers. */
function niceCeiling(value) {
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}
