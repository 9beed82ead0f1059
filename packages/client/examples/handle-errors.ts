import { ClarionApiError, createClarionClient } from '@clarion/client';

const clarion = createClarionClient({ baseUrl: process.env.CLARION_URL!, apiKey: process.env.CLARION_API_KEY! });
try {
  await clarion.send({ channelCode: 'no-such-channel', title: 'Hello' });
} catch (error) {
  // error.code is one of the API's error codes (docs/errors.md), typed as a union.
  if (!(error instanceof ClarionApiError) || error.code !== 'channel_not_found') throw error;
  console.log(`${error.status} ${error.code}: ${error.message} (request ${error.requestId})`);
}
