// The floor under `clarion serve`'s start-up (bench/startup.ts, variant `hello`): what Node and Fastify alone cost on
// this machine. Plain Fastify with one route, `GET /readyz` answering 200, on CLARION_PORT and CLARION_HOST as
// `clarion serve` listens; no logger, no database, no plugins. Plain JavaScript, so it starts without tsx as the
// compiled build does.
import Fastify from 'fastify';

const app = Fastify();
app.get('/readyz', async () => ({ status: 'ok' }));
await app.listen({ port: Number(process.env.CLARION_PORT ?? 3000), host: process.env.CLARION_HOST ?? '127.0.0.1' });
