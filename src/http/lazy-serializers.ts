import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;

/**
 * Fastify's own response serializers (fast-json-stringify), each compiled the first time its route answers with that
 * status instead of all at start-up. Compiling every response schema of every route was the largest single package
 * in `clarion serve`'s start-up CPU profile (about a tenth of it), for serializers most processes never use (error
 * statuses a route rarely answers); compiled lazily, start-up took about 60 ms less CPU and 5 MiB less resident memory
 * (docs/performance.md, "Start-up and idle memory"). The first answer of each kind pays its compile, a few milliseconds.
 * Plugged in through Fastify's documented `schemaController.compilersFactory` option.
 */
export function lazySerializerFactory(): SerializerFactory {
  const eager = SerializerSelector();
  return (externalSchemas, serializerOptions) => {
    const compile = eager(externalSchemas, serializerOptions);
    return (route) => {
      let serialize: ((data: unknown) => string) | undefined;
      return (data: unknown) => (serialize ??= compile(route))(data);
    };
  };
}
