import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

/**
 * The Dockerfile and compose.yaml at the repository root. No container runtime can build or pull
 * images on the test machines, so this checks what can be checked without one: hadolint when it is installed, and
 * always a parse of both files asserting the properties docs/deploy.md promises. The compose topology itself runs
 * as processes in replicas.test.ts.
 */
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(`${repoRoot}${path}`, 'utf8');

interface Instruction {
  keyword: string;
  args: string;
}

/** Dockerfile instructions in order: comments and blank lines dropped, continuation lines (`\` at the end) joined. */
function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let pending = '';
  for (const line of text.split('\n')) {
    if (/^\s*#/.test(line)) continue;
    if (line.trim() === '' && pending === '') continue;
    const joined = pending + line.trim();
    if (joined.endsWith('\\')) {
      pending = `${joined.slice(0, -1).trim()} `;
      continue;
    }
    pending = '';
    const match = /^(\w+)\s+(.*)$/s.exec(joined);
    if (match) instructions.push({ keyword: match[1]!.toUpperCase(), args: match[2]!.trim() });
  }
  return instructions;
}

/** The stages of a multi-stage Dockerfile: each FROM with the instructions after it. */
function stagesOf(
  instructions: Instruction[],
): Array<{ from: string; name: string | null; instructions: Instruction[] }> {
  const stages: Array<{ from: string; name: string | null; instructions: Instruction[] }> = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const [image, as, name] = instruction.args.split(/\s+/);
      stages.push({ from: image!, name: as?.toUpperCase() === 'AS' ? name! : null, instructions: [] });
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return stages;
}

function hadolint(): string | null {
  const which = spawnSync('sh', ['-c', 'command -v hadolint'], { encoding: 'utf8' });
  return which.status === 0 ? which.stdout.trim() : null;
}

describe('Dockerfile', () => {
  const instructions = parseDockerfile(read('Dockerfile'));
  const stages = stagesOf(instructions);
  const runtime = stages.at(-1)!;
  const all = (keyword: string) => runtime.instructions.filter((instruction) => instruction.keyword === keyword);
  const env = Object.fromEntries(
    all('ENV').flatMap((instruction) =>
      [...instruction.args.matchAll(/(\w+)=(\S+)/g)].map((match) => [match[1]!, match[2]!]),
    ),
  );

  it.runIf(hadolint() !== null)('passes hadolint', () => {
    const result = spawnSync(hadolint()!, ['Dockerfile'], { cwd: repoRoot, encoding: 'utf8' });
    expect(result.status, result.stdout + result.stderr).toBe(0);
  });

  it('builds in one stage and runs in another, from a pinned Node major version', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(stages[0]!.name).toBe('build');
    const defaultImage = /^NODE_IMAGE=(\S+)$/.exec(
      instructions.find((instruction) => instruction.keyword === 'ARG')!.args,
    )?.[1];
    expect(defaultImage).toMatch(/^node:\d+-/);
    // Node 22 or later: the SQLite driver there ships its binaries (src/store/sqlite/sqlite-driver.ts), so the build stage
    // needs no compiler; Node 20 would need the optional, compiled better-sqlite3-node20 that this recipe skips.
    expect(Number(/^node:(\d+)-/.exec(defaultImage!)![1])).toBeGreaterThanOrEqual(22);
    const buildRuns = stages[0]!.instructions
      .filter((instruction) => instruction.keyword === 'RUN')
      .map((instruction) => instruction.args)
      .join('\n');
    expect(buildRuns).toContain('npm ci');
    expect(buildRuns).toContain('npm run build');
    expect(buildRuns).toContain('npm prune --omit=dev');
    const fromBuild = all('COPY').filter((instruction) => instruction.args.startsWith('--from=build'));
    expect(fromBuild.map((instruction) => instruction.args.split(/\s+/)[1])).toEqual(
      expect.arrayContaining(['/app/dist', '/app/node_modules']),
    );
  });

  it('writes ENTRYPOINT, CMD and the health check in exec form (JSON arrays: no shell, signals reach node)', () => {
    const execForms = [
      all('ENTRYPOINT')[0]!.args,
      all('CMD')[0]!.args,
      all('HEALTHCHECK')[0]!.args.replace(/^.*?CMD\s+/, ''),
    ];
    for (const form of execForms) expect(Array.isArray(JSON.parse(form)), form).toBe(true);
  });

  it('runs as a user other than root', () => {
    const users = all('USER');
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)!.args).not.toMatch(/^(root|0)(:|$)/);
  });

  it('keeps its data on a volume at CLARION_DATA_DIR, and the user can write there', () => {
    expect(env.CLARION_DATA_DIR).toBe('/data');
    expect(
      all('VOLUME')
        .map((instruction) => instruction.args)
        .join(' '),
    ).toContain('"/data"');
    expect(
      all('RUN')
        .map((instruction) => instruction.args)
        .join('\n'),
    ).toMatch(/chown node:node \/data/);
    expect(all('USER').at(-1)!.args).toBe('node');
  });

  it("sets CLARION_HOST itself: unset, a new instance would listen on the container's loopback only (src/http/listen-on.ts)", () => {
    expect(env.CLARION_HOST).toBe('0.0.0.0');
  });

  it('checks its health on /readyz, on the port it exposes', () => {
    const healthcheck = all('HEALTHCHECK');
    expect(healthcheck).toHaveLength(1);
    expect(healthcheck[0]!.args).toMatch(/CMD .*\/readyz/);
    expect(healthcheck[0]!.args).toContain('process.env.CLARION_PORT || 3000');
    expect(all('EXPOSE').map((instruction) => instruction.args)).toEqual([env.CLARION_PORT]);
  });

  it('starts `clarion serve` from the compiled build, with every file it reads at run time copied in', () => {
    expect(all('ENTRYPOINT')[0]!.args).toBe('["node", "bin/clarion.js"]');
    expect(all('CMD')[0]!.args).toBe('["serve"]');
    const copied = all('COPY')
      .filter((instruction) => !instruction.args.startsWith('--from'))
      .map((instruction) => instruction.args.split(/\s+/)[0]!);
    // bin/ (the command), web/ (the dashboard) and web-sdk/ (the browser SDK) are read relative to dist/.
    expect(copied).toEqual(expect.arrayContaining(['package.json', 'bin', 'web', 'web-sdk']));
    for (const path of copied) expect(existsSync(`${repoRoot}${path}`), path).toBe(true);
    const ignored = read('.dockerignore')
      .split('\n')
      .filter((line) => line && !line.startsWith('#'));
    for (const path of [...copied, 'src', 'scripts', 'tsconfig.build.json']) expect(ignored, path).not.toContain(path);
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', 'data']));
  });
});

describe('compose.yaml', () => {
  const compose = parseYaml(read('compose.yaml'), { merge: true }) as {
    services: Record<
      string,
      {
        image?: string;
        build?: string;
        command?: string[];
        deploy?: { replicas?: number };
        environment?: Record<string, string>;
        ports?: string[];
        depends_on?: Record<string, { condition: string }>;
        volumes?: string[];
        healthcheck?: { test?: string[]; disable?: boolean };
      }
    >;
    configs: Record<string, { content: string }>;
    volumes: Record<string, unknown>;
  };
  const { services } = compose;

  it('runs PostgreSQL, a migration step, two API replicas, a worker and a proxy', () => {
    expect(Object.keys(services).sort()).toEqual(['api', 'migrate', 'postgres', 'proxy', 'worker']);
    expect(services.postgres!.image).toMatch(/^postgres:\d+/);
    expect(services.api!.command).toEqual(['serve', '--api']);
    expect(services.api!.deploy?.replicas).toBe(2);
    expect(services.worker!.command).toEqual(['serve', '--worker']);
    expect(services.migrate!.command).toEqual(['migrate']);
    for (const name of ['api', 'worker', 'migrate']) expect(services[name]!.build, name).toBe('.');
  });

  it('migrates once before the API and the worker start, after PostgreSQL is healthy', () => {
    expect(services.migrate!.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(services.postgres!.healthcheck?.test?.[1]).toBe('pg_isready');
    for (const name of ['api', 'worker'])
      expect(services[name]!.depends_on, name).toEqual({ migrate: { condition: 'service_completed_successfully' } });
  });

  it('gives every Clarion process the same database and the same required secret key', () => {
    const environments = ['api', 'worker', 'migrate'].map((name) => services[name]!.environment!);
    for (const environment of environments) {
      expect(environment).toEqual(environments[0]);
      expect(environment.CLARION_SECRET_KEY).toMatch(/^\$\{CLARION_SECRET_KEY:\?/);
    }
    const url = new URL(environments[0]!.CLARION_DATABASE_URL!.replace(/\$\{[^}]+\}/, 'password'));
    expect(url.hostname).toBe('postgres');
    expect(url.username).toBe((services.postgres!.environment as Record<string, string>).POSTGRES_USER);
    expect(url.pathname).toBe(`/${(services.postgres!.environment as Record<string, string>).POSTGRES_DB}`);
    expect(services.postgres!.volumes).toEqual(['postgres-data:/var/lib/postgresql/data']);
    expect(Object.keys(compose.volumes)).toContain('postgres-data');
  });

  it('publishes only the proxy, which balances over every API replica and is trusted for forwarded headers', () => {
    expect(services.proxy!.ports).toEqual(['80:80', '443:443']);
    for (const name of ['api', 'worker', 'postgres']) expect(services[name]!.ports, name).toBeUndefined();
    expect(compose.configs.caddyfile!.content).toMatch(/reverse_proxy \{[^}]*dynamic a api 3000/);
    expect(services.api!.environment!.CLARION_TRUST_PROXY).toBe('uniquelocal');
    expect(services.api!.environment!.CLARION_BASE_URL).toMatch(/^https:\/\//);
    // A worker-only process has no HTTP listener: the image's /readyz check is turned off for it.
    expect(services.worker!.healthcheck).toEqual({ disable: true });
  });
});
