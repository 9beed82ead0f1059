/** Text for HTML: the channel's name and description are the account's own words, never markup. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

export interface JoinPageContent {
  channelName: string;
  channelDescription: string | null;
  channelCode: string;
  /** The page's own path, /join/<slug>/<code>: the service worker's scope and the web app's start and scope. */
  path: string;
  /** The publishable key scoped to this channel (channel-join-key.ts): the only key the page shows. */
  publishableKey: string;
}

/**
 * The join page (docs/web-push.md, "Join page"): the channel's name and description and one "Get notifications"
 * button; its script (web-sdk/join-page.js) shows the iOS Home Screen steps, the unsupported note or the button,
 * whichever applies. Everything dynamic is escaped; the script reads its settings from data-* attributes.
 */
export function joinPageHtml(content: JoinPageContent): string {
  const name = escapeHtml(content.channelName);
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="same-origin">
  <title>${name} · notifications</title>
  <link rel="manifest" href="${escapeHtml(content.path)}/manifest.webmanifest">
  <meta name="apple-mobile-web-app-capable" content="yes">
  <meta name="mobile-web-app-capable" content="yes">
  <meta name="apple-mobile-web-app-title" content="${name}">
  <link rel="icon" href="/sdk/clarion-icon.svg" type="image/svg+xml">
  <link rel="apple-touch-icon" href="/sdk/clarion-icon-180.png">
  <link rel="stylesheet" href="/sdk/join-page.css">
  <link rel="modulepreload" href="/sdk/clarion-web.js">
  <script type="module" src="/sdk/join-page.js"></script>
</head>
<body>
  <main id="join" data-key="${escapeHtml(content.publishableKey)}" data-channel="${escapeHtml(content.channelCode)}" data-scope="${escapeHtml(content.path)}" data-service-worker="/sdk/clarion-sw.js">
    <h1>${name}</h1>
    ${content.channelDescription ? `<p class="description">${escapeHtml(content.channelDescription)}</p>` : ''}
    <button type="button" id="subscribe" class="primary">Get notifications</button>
    <button type="button" id="unsubscribe" class="secondary" hidden>Stop notifications</button>
    <section id="ios-steps" hidden aria-labelledby="ios-steps-title">
      <h2 id="ios-steps-title">On iPhone and iPad, add this page to your Home Screen first</h2>
      <p>iOS delivers web notifications only to web apps on the Home Screen (iOS 16.4 or later).</p>
      <ol class="steps">
        <li>Tap the Share button in Safari.</li>
        <li>Choose <strong>Add to Home Screen</strong>, then <strong>Add</strong>.</li>
        <li>Open <strong>${name}</strong> from your Home Screen and tap <strong>Get notifications</strong> there.</li>
      </ol>
    </section>
    <p id="unsupported" hidden>This browser cannot receive web notifications. Current Chrome, Edge, Firefox and Safari (macOS 13 or later) can.</p>
    <noscript><p>Getting notifications needs JavaScript: turn it on for this page and reload.</p></noscript>
    <p id="status" role="status" aria-live="polite"></p>
    <footer>You can stop them at any time here or in your browser’s site settings.</footer>
  </main>
</body>
</html>
`;
}

/** The plain page for an unknown or switched-off join page: says nothing about which of the two it is. */
export function joinPageNotFoundHtml(): string {
  return plainPage(
    'Page not found',
    'There is no join page at this address. Check the link, or ask whoever shared it.',
  );
}

/** The plain page for too many views from one address (join-routes.ts). */
export function joinPageTooManyHtml(): string {
  return plainPage(
    'Too many requests',
    'This address has opened join pages very often in the last few seconds. Wait a moment, then reload.',
  );
}

function plainPage(heading: string, text: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${heading}</title>
  <link rel="icon" href="/sdk/clarion-icon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/sdk/join-page.css">
</head>
<body>
  <main>
    <h1>${heading}</h1>
    <p class="description">${text}</p>
  </main>
</body>
</html>
`;
}

/** The web app manifest iOS needs to add the page to the Home Screen (and Chrome to install it). */
export function joinPageManifest(content: Pick<JoinPageContent, 'channelName' | 'path'>): Record<string, unknown> {
  return {
    name: content.channelName,
    short_name: content.channelName.slice(0, 30),
    start_url: content.path,
    scope: content.path,
    display: 'standalone',
    background_color: '#f3f4f6',
    theme_color: '#2f54eb',
    icons: [
      { src: '/sdk/clarion-icon.svg', sizes: 'any', type: 'image/svg+xml' },
      { src: '/sdk/clarion-icon-180.png', sizes: '180x180', type: 'image/png' },
      { src: '/sdk/clarion-icon-512.png', sizes: '512x512', type: 'image/png' },
    ],
  };
}
