import { createClarionClient, unwrap } from '@clarion/client';

const clarion = createClarionClient({ baseUrl: process.env.CLARION_URL!, apiKey: process.env.CLARION_API_KEY! });
// Every operation of the OpenAPI document, with typed paths, parameters, bodies and answers.
const channels = await unwrap(clarion.api.GET('/api/v1/channels', { params: { query: { limit: 10 } } }));
const usage = await unwrap(clarion.api.GET('/api/v1/usage'));
console.log(`channels: ${channels.map((channel) => channel.code).join(', ')}; used ${usage.used} of ${usage.limit}`);
