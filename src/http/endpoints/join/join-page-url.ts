/** A channel's public join page: <base URL>/join/<account slug>/<channel code> (docs/web-push.md, "Join page"). */
export function joinPageUrl(baseUrl: string, accountSlug: string, channelCode: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${joinPagePath(accountSlug, channelCode)}`;
}

/** The page's path on this instance; also the scope of the service worker and web app the page installs. */
export function joinPagePath(accountSlug: string, channelCode: string): string {
  return `/join/${accountSlug}/${channelCode}`;
}
