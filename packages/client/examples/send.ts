import { createClarionClient } from '@clarion/client';

const clarion = createClarionClient({ baseUrl: process.env.CLARION_URL!, apiKey: process.env.CLARION_API_KEY! });
await clarion.send({ channelCode: 'news', title: 'Hello', body: 'Sent with three lines of typed code' });
