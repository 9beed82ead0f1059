import { createClarionClient } from '@clarion/client';

const clarion = createClarionClient({ baseUrl: process.env.CLARION_URL!, apiKey: process.env.CLARION_API_KEY! });
const activity = await clarion.startLiveActivity({
  channelCode: 'news',
  template: 'progress',
  fields: { title: 'Order #42', progress: 0.1, status: 'Packing' },
});
await clarion.updateLiveActivity(activity.id, { fields: { progress: 0.6, status: 'On its way' } });
const ended = await clarion.endLiveActivity(activity.id, { fields: { progress: 1, status: 'Delivered' } });
console.log(`${ended.id} ${ended.status}`);
