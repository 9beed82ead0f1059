// Routing in the browser on #/paths: the server only ever serves "/", so a reload or a shared link works without
// server-side routes, and no path the dashboard shows ever carries a secret (nothing secret goes in a URL).

/** The current location as {path, query}: "#/notifications/new?channel=news" → "/notifications/new", {channel}. */
export function currentLocation() {
  const hash = window.location.hash.startsWith('#/') ? window.location.hash.slice(1) : '/';
  const [path = '/', search = ''] = hash.split('?');
  return { path: path.replace(/\/+$/, '') || '/', query: new URLSearchParams(search) };
}

export function navigate(path, { replace = false } = {}) {
  const target = `#${path}`;
  if (window.location.hash === target) {
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else if (replace) {
    window.location.replace(target);
  } else {
    window.location.hash = target;
  }
}

/** Finds the route whose pattern matches `path` ("/channels/:code"); returns {route, params} or null. */
export function matchRoute(routes, path) {
  const parts = path.split('/').filter(Boolean);
  for (const route of routes) {
    const pattern = route.path.split('/').filter(Boolean);
    if (pattern.length !== parts.length) continue;
    const params = {};
    let ok = true;
    for (const [index, segment] of pattern.entries()) {
      const part = parts[index];
      if (segment.startsWith(':')) {
        try {
          params[segment.slice(1)] = decodeURIComponent(part);
        } catch {
          ok = false;
        }
      } else if (segment !== part) {
        ok = false;
      }
      if (!ok) break;
    }
    if (ok) return { route, params };
  }
  return null;
}

/** A link to a dashboard path, for href attributes. */
export function href(path) {
  return `#${path}`;
}
