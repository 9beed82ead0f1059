// The build's last step (scripts/build.js): the `clarion` command (dist/cli/main.js and everything it imports, with
// the packages it loads at start) bundled by esbuild into dist/bundle/: main.js and the chunks that the commands and
// the routes loaded on first use import on demand. Node's cost at start-up is per module, and an idle `clarion serve`
// loaded about 1,900 of them; one file and a few chunks start in two thirds of the CPU and with less memory
// (docs/performance.md, "Start-up and idle memory"). bin/entry-point.js runs dist/bundle/main.js when it is there, and
// the modules of dist/ stay as tsc wrote them for what runs them directly: the worker thread's entry, the migrations
// (found by listing their folder) and the tests of the build.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Packages left to load as installed, each for a reason:
 * - native or found at run time by name: the SQLite drivers (src/store/sqlite/sqlite-driver.ts) and node-postgres
 *   with its optional native binding (src/store/postgres/pg-module.ts);
 * - finding their own files next to their code (`__dirname`): pino (its transports start a worker from a file),
 *   @fastify/swagger-ui (the Swagger UI assets), and @fastify/swagger with it;
 * - loaded on first use anyway, so bundling them saves nothing at start: qrcode (the join page's code), undici (the
 *   Web Push transport for HTTP/1.1 push services, with its WebAssembly parser);
 * - the build and development tools.
 */
const EXTERNAL = [
  'better-sqlite3',
  'better-sqlite3-node20',
  'pg',
  'pg-native',
  'pino',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  'qrcode',
  'undici',
  'esbuild',
  'tsx',
  'typescript',
];

/** Bundles dist/cli/main.js into `dist`/bundle. Returns false when esbuild is missing (dist/ then runs unbundled). */
export async function bundleServer(root, dist) {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    return false;
  }
  const outdir = join(dist, 'bundle');
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { main: join(dist, 'cli/main.js') },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir,
    // Every output in one folder, so that one relative URL from any of them reaches dist/ (keepModuleUrls).
    chunkNames: 'chunk-[hash]',
    external: EXTERNAL,
    // The CommonJS packages in the bundle call `require` for Node's modules; an ES module has none of its own.
    banner: {
      js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
    },
    plugins: [keepModuleUrls(outdir)],
    metafile: true,
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  const stray = filesFindingTheirOwnFolder(root, result.metafile);
  if (stray.length > 0)
    throw new Error(
      `scripts/server-bundle.js: bundled code that finds files by its own folder (__dirname or __filename): ${stray.join(', ')}; add its package to EXTERNAL`,
    );
  return true;
}

/**
 * Clarion's modules find files next to themselves through `import.meta.url` (the dashboard's web/, the web SDK, the
 * migrations, package.json, the worker thread's entry). In a bundle that URL would be the bundle's: each module of
 * dist/ gets its own URL back instead, as the bundle's URL resolved to where tsc wrote that module.
 */
function keepModuleUrls(outdir) {
  return {
    name: 'keep-module-urls',
    setup(build) {
      build.onLoad({ filter: /\.js$/ }, (args) => {
        if (args.path.includes('/node_modules/')) return undefined;
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return undefined;
        let path = relative(outdir, args.path);
        if (!path.startsWith('.')) path = `./${path}`;
        return {
          contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(path)}, import.meta.url).href`),
          loader: 'js',
        };
      });
    },
  };
}

/** The bundled files of installed packages that use `__dirname` or `__filename` in code (not in a comment line). */
function filesFindingTheirOwnFolder(root, metafile) {
  return Object.keys(metafile.inputs).filter((input) => {
    if (!input.includes('node_modules/')) return false;
    return readFileSync(join(root, input), 'utf8')
      .split('\n')
      .some((line) => /\b__(dirname|filename)\b/.test(line) && !/^\s*(\/\/|\*|\/\*)/.test(line));
  });
}
