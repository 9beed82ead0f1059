import type { FastifyReply, FastifyRequest } from 'fastify';
import { isChannelCode } from '../../../domain/channel-code.ts';
import { SecretBoxError } from '../../../domain/secret-box.ts';
import { findAccountBySlug } from '../../../store/accounts-queries.ts';
import { findChannelByCode, type Channel } from '../../../store/channels-queries.ts';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies, ClarionApp } from '../../app-types.ts';
import { PAGE_SECURITY_HEADERS } from '../../dashboard-static.ts';
import { RateLimiter, sweepWhileOpen } from '../../rate-limiter.ts';
import { activeJoinKey } from '../channels/channel-join-key.ts';
import { joinPageHtml, joinPageManifest, joinPageNotFoundHtml, joinPageTooManyHtml } from './join-page-html.ts';
import { joinPagePath } from './join-page-url.ts';

/**
 * Page views per client address. Each view reads the account, the channel and its key, so one address flooding join
 * pages is capped at 20 of those a second. Generous on purpose: a QR code shown at an event is scanned by hundreds
 * of phones at once, many behind one carrier's NAT address; 200 at once and 20 a second after that still lets a
 * crowd in while holding a flood to a few queries a second.
 */
export const JOIN_PAGE_VIEWS_PER_SECOND = 20;
export const JOIN_PAGE_VIEWS_BURST = 200;

interface JoinParams {
  slug: string;
  code: string;
}

/**
 * The public join pages (docs/web-push.md, "Join page"): GET /join/<account slug>/<channel code> and the web app
 * manifest beside it. Public (no key, no session): what a page shows is what its channel's owner chose to publish by
 * switching the page on. An unknown slug, an unknown channel and a page that is off all answer the same 404, so the
 * addresses reveal nothing about which channels exist.
 */
export function registerJoinPages(app: ClarionApp, deps: AppDependencies): void {
  const views = new RateLimiter(JOIN_PAGE_VIEWS_PER_SECOND, JOIN_PAGE_VIEWS_BURST, deps.clock);
  sweepWhileOpen(app, [views]);
  const limited = (request: FastifyRequest, reply: FastifyReply) => {
    const retryAfter = views.take(request.ip);
    if (retryAfter === 0) return false;
    if (wantsJson(request))
      throw new ApiError('rate_limited', {
        headers: { 'retry-after': String(retryAfter) },
        details: { retryAfterSeconds: retryAfter },
      });
    for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) reply.header(name, value);
    reply
      .code(429)
      .header('retry-after', String(retryAfter))
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(joinPageTooManyHtml());
    return true;
  };

  app.get<{ Params: JoinParams }>('/join/:slug/:code', { schema: { hide: true } }, async (request, reply) => {
    if (limited(request, reply)) return reply;
    const found = await findJoinPage(request, deps);
    if (!found) return notFound(request, reply);
    for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) reply.header(name, value);
    // The page embeds a key that stops working when the page is switched off: never keep a copy.
    reply.header('cache-control', 'no-store');
    return reply.type('text/html; charset=utf-8').send(
      joinPageHtml({
        channelName: found.channel.name,
        channelDescription: found.channel.description,
        channelCode: found.channel.code,
        path: found.path,
        publishableKey: found.key,
      }),
    );
  });

  app.get<{ Params: JoinParams }>(
    '/join/:slug/:code/manifest.webmanifest',
    { schema: { hide: true } },
    async (request, reply) => {
      if (limited(request, reply)) return reply;
      const found = await findJoinPage(request, deps);
      if (!found) throw new ApiError('not_found', { message: 'There is no join page at this address.' });
      reply.header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff');
      return reply
        .type('application/manifest+json; charset=utf-8')
        .send(JSON.stringify(joinPageManifest({ channelName: found.channel.name, path: found.path })));
    },
  );
}

async function findJoinPage(
  request: FastifyRequest<{ Params: JoinParams }>,
  deps: AppDependencies,
): Promise<{ channel: Channel; key: string; path: string } | undefined> {
  const { params } = request;
  if (!isChannelCode(params.code)) return undefined;
  const account = await findAccountBySlug(deps.store.db, params.slug);
  if (!account) return undefined;
  const channel = await findChannelByCode(deps.store.db, account.id, params.code);
  if (!channel) return undefined;
  let key: string | undefined;
  try {
    key = await activeJoinKey(deps.store.db, channel, deps.secretKey, deps.clock.now());
  } catch (error) {
    if (!(error instanceof SecretBoxError)) throw error;
    // Sealed under another instance key (CLARION_SECRET_KEY changed): the page cannot show its key. Switching the page
    // off and on again issues a new one; until then it answers 404 like a page that is off, rather than failing.
    request.log.warn(
      { channelId: channel.id },
      'join page key does not open with this CLARION_SECRET_KEY; switch the join page off and on to issue a new one',
    );
    return undefined;
  }
  return key === undefined ? undefined : { channel, key, path: joinPagePath(account.slug, channel.code) };
}

/** A person gets a plain page; a program that asked for JSON gets the error envelope like every other 404. */
function notFound(request: FastifyRequest, reply: FastifyReply) {
  if (wantsJson(request)) throw new ApiError('not_found', { message: 'There is no join page at this address.' });
  for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) reply.header(name, value);
  return reply
    .code(404)
    .header('cache-control', 'no-cache')
    .type('text/html; charset=utf-8')
    .send(joinPageNotFoundHtml());
}

function wantsJson(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return accept.includes('application/json') && !accept.includes('text/html');
}
