import Type from 'typebox';
import { ApiError } from '../../api-error.ts';
import type { AppDependencies } from '../../app-types.ts';
import { endpoint, type Endpoint } from '../../endpoint.ts';
import { channelInScope } from '../../channel-scope.ts';
import { ChannelCode, errorResponses } from '../../schemas.ts';
import { joinPageUrl } from '../join/join-page-url.ts';
import { joinPageBase } from './channel-join-key.ts';

/**
 * The join page's address as a QR code, an SVG the dashboard shows and an owner can print (docs/dashboard.md).
 * Rendered here with the `qrcode` package rather than in the dashboard, which has no build step to bundle it; the
 * package is imported on the first request, since nothing else in a running server uses it.
 * Error correction M (15 % of the code may be damaged or covered) is the usual choice for printed codes, and a
 * quiet zone of 4 modules is what ISO/IEC 18004 asks for around a code.
 */
export function getJoinQrCodeEndpoint(deps: AppDependencies): Endpoint {
  return endpoint(
    {
      schema: {
        summary: "The channel's join page address as a QR code (SVG)",
        description: 'Only while the join page is on (404 not_found otherwise).',
        tags: ['channels'],
        params: Type.Object({ code: ChannelCode }),
        response: {
          200: { description: 'An SVG image of the QR code.', content: { 'image/svg+xml': { schema: Type.String() } } },
          ...errorResponses(400, 401, 403, 404, 429),
        },
      },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const { code } = request.params;
      const channel = await channelInScope(deps.store.db, auth, code);
      if (channel.join_key_id === null)
        throw new ApiError('not_found', { message: `The join page of channel "${code}" is off; turn it on first.` });
      const { baseUrl, accountSlug } = await joinPageBase(deps, auth.accountId);
      const { default: QRCode } = await import('qrcode');
      const svg = await QRCode.toString(joinPageUrl(baseUrl, accountSlug, code), {
        type: 'svg',
        margin: 4,
        errorCorrectionLevel: 'M',
      });
      // An SVG opened on its own is a document: let it run and load nothing.
      reply
        .header('content-security-policy', "default-src 'none'")
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'no-cache');
      return reply.type('image/svg+xml').send(svg);
    },
  );
}
