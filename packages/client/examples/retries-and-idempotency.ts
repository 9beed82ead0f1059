import { createClarionClient } from '@clarion/client';

const clarion = createClarionClient({
  baseUrl: process.env.CLARION_URL!,
  apiKey: process.env.CLARION_API_KEY!,
  // Up to 5 retries of 429 rate_limited and 503 unavailable, never waiting more than 10 s at once.
  retry: { maxRetries: 5, maxDelayMs: 10_000 },
});
// Your own key makes the send safe to repeat even from another process: the second call replays the first answer.
const first = await clarion.send(
  { channelCode: 'news', title: 'Order #42 shipped' },
  { idempotencyKey: 'order-42-shipped' },
);
const again = await clarion.send(
  { channelCode: 'news', title: 'Order #42 shipped' },
  { idempotencyKey: 'order-42-shipped' },
);
console.log(`one notification: ${first.id === again.id}`);
