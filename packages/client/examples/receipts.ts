import { createClarionClient } from '@clarion/client';

// Your app sent your server the receipt of a push it opened (its `clarionReceipt`); your server passes it on.
const clarion = createClarionClient({ baseUrl: process.env.CLARION_URL!, apiKey: process.env.CLARION_API_KEY! });
const result = await clarion.sendReceipt({ receipt: process.env.CLARION_RECEIPT!, event: 'opened' });
console.log(result);
