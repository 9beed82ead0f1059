import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Whoever clones the repository must be able to follow every reference in it: Markdown links, file paths named in
 * comments, and the section numbers the code cites (`docs/protocols.md 1.2`, `docs/design.md 3.3`,
 * `docs/develop.md, convention 6`). Nothing may point at notes that live outside the repository.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const SKIP = new Set(['node_modules', '.git', 'dist', 'data', 'coverage', 'test-results', '.cache']);
const BINARY = /\.(png|jpe?g|gif|ico|webp|woff2?|sqlite|db|p8|p12|der)$/;

function repositoryFiles(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name)) return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? repositoryFiles(path) : BINARY.test(entry.name) ? [] : [relative(ROOT, path)];
  });
}

const files = repositoryFiles();
/** This file quotes broken references on purpose, to test the checks themselves. */
const self = relative(ROOT, import.meta.filename);
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const markdownFiles = files.filter((file) => /^(README\.md|CHANGELOG\.md|docs\/.+\.md|bench\/README\.md)$/.test(file));
const codeFiles = files.filter(
  (file) => file !== self && /^(src|tests|tools|bench|scripts|web)\/.+\.(ts|js|html|css)$/.test(file),
);

const withoutFences = (markdown: string) => markdown.replace(/^```[\s\S]*?^```/gm, '');
/** Fenced blocks and inline code spans hold examples, not links. */
const withoutCode = (markdown: string) => withoutFences(markdown).replace(/`[^`\n]*`/g, '');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, text] of withoutFences(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = text!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

/** Relative link targets of inline `[text](target)` links and `[label]: target` definitions. */
function relativeLinks(markdown: string): string[] {
  const text = withoutCode(markdown);
  const targets = [
    ...[...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]!),
    ...[...text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((match) => match[1]!),
  ];
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** Comment lines joined, so a citation broken across lines (`docs/protocols.md` ⏎ `* 2.3`) reads as one. */
const joinLines = (text: string) => text.replace(/\s*\n\s*(?:\*(?!\/)|\/\/|#)?\s*/g, ' ');

interface Citation {
  doc: 'protocols' | 'design' | 'develop';
  section: string;
}

const SECTION = String.raw`\d+(?:\.\d+)?`;
/** A further section in a list (`1.2, 1.6`, `3.2–3.4`, `3.4 / 3.5`), but not a quantity (`2.7, 4 KB`). */
const MORE = String.raw`\s*(?:,|–|-|\/|and)\s*§?${SECTION}(?![\d.]*\s*(?:KB|kB|s\b|h\b|ms\b|%))`;
const DOC_CITATION = new RegExp(
  String.raw`docs\/(protocols|design)\.md\s*(?:§|section\s+)?(${SECTION}(?:${MORE})*)`,
  'g',
);
const CONVENTION_CITATION = /docs\/develop\.md,?\s*conventions?\s+(\d+)/g;

/** `docs/protocols.md 1.2, 1.6`, `… §6`, `… section 5`, `docs/design.md 3.2–3.4`, `docs/develop.md, convention 6`. */
function citations(text: string): Citation[] {
  const joined = joinLines(text);
  const found: Citation[] = [];
  for (const [, doc, list] of joined.matchAll(DOC_CITATION)) {
    for (const section of list!.match(new RegExp(SECTION, 'g'))!) found.push({ doc: doc as Citation['doc'], section });
  }
  for (const [, number] of joined.matchAll(CONVENTION_CITATION)) found.push({ doc: 'develop', section: number! });
  return found;
}

/** Section numbers a document defines: `## 3. Title` → 3, `### 3.2 Title` → 3.2; develop.md: its numbered conventions. */
function sectionsOf(doc: Citation['doc']): Set<string> {
  const text = read(`docs/${doc}.md`);
  if (doc === 'develop') {
    const conventions = text.split(/^## Conventions\s*$/m)[1]?.split(/^## /m)[0] ?? '';
    return new Set([...conventions.matchAll(/^(\d+)\.\s/gm)].map((match) => match[1]!));
  }
  return new Set([...text.matchAll(/^#{2,4}\s+(\d+(?:\.\d+)?)\.?\s/gm)].map((match) => match[1]!));
}

/** Repository paths named in code: `docs/….md`, `src/….ts`, `tools/…`, `tests/…` (and bench/, scripts/, web/). */
function citedPaths(text: string): string[] {
  const paths = text.match(/(?<![\w./@${}-])(?:docs|src|tools|tests|bench|scripts|web)\/[\w./-]*[\w/]/g) ?? [];
  return paths.filter((path) => !path.includes('//'));
}

describe('references inside the repository', () => {
  it('Markdown links point at files (and headings) that exist', () => {
    const broken = markdownFiles.flatMap((file) =>
      relativeLinks(read(file))
        .filter((link) => {
          const [path, anchor] = link.split('#') as [string, string | undefined];
          const target = path === '' ? file : relative(ROOT, resolve(ROOT, dirname(file), decodeURI(path)));
          if (!existsSync(join(ROOT, target))) return true;
          if (anchor === undefined || !target.endsWith('.md')) return false;
          return !headingAnchors(read(target)).has(anchor);
        })
        .map((link) => `${file}: ${link}`),
    );
    expect(broken).toEqual([]);
  });

  it('paths named in code exist', () => {
    const broken = codeFiles.flatMap((file) =>
      citedPaths(read(file))
        .filter((path) => !existsSync(join(ROOT, path)))
        .map((path) => `${file}: ${path}`),
    );
    expect(broken).toEqual([]);
    // A bare file name (`job-queue.ts`) is read relative to the file or its folder: it must name some file here.
    const names = new Set(files.map((file) => basename(file)));
    const unknown = codeFiles.flatMap((file) =>
      [...read(file).matchAll(/(?<![\w./*@${}'"-])([a-z][\w-]*(?:\.[\w-]+)*\.ts)\b/g)]
        .map((match) => match[1]!)
        .filter((name) => !names.has(name))
        .map((name) => `${file}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it('cited sections of docs/protocols.md, docs/design.md and docs/develop.md exist', () => {
    const sections = {
      protocols: sectionsOf('protocols'),
      design: sectionsOf('design'),
      develop: sectionsOf('develop'),
    };
    const broken = [...codeFiles, ...markdownFiles].flatMap((file) =>
      citations(read(file))
        .filter(({ doc, section }) => !sections[doc].has(section))
        .map(({ doc, section }) => `${file}: docs/${doc}.md ${section}`),
    );
    expect(broken).toEqual([]);
    // A citation without its folder ("protocols.md 3.5") names no file from where the code stands.
    const bare = codeFiles.filter((file) => /(?<!docs\/)\b(protocols|design|develop)\.md\b/i.test(read(file)));
    expect(bare).toEqual([]);
  });

  it('no text cites "the seed", an interface document that is not in the repository', () => {
    // Its pinned endpoints and fields are docs/design.md 2.4 ("the original interface"): cite that instead.
    const seed = /\bseed (?:interface|\d)|\bseed's\b|\bthe seed left\b/i;
    const text = files.filter((file) => file !== self && statSync(join(ROOT, file)).size < 2_000_000);
    expect(text.filter((file) => seed.test(read(file)))).toEqual([]);
  });

  it("the README's documentation list links every page under docs/", () => {
    const list =
      read('README.md')
        .split(/^## Documentation\s*$/m)[1]
        ?.split(/^## /m)[0] ?? '';
    const listed = new Set(relativeLinks(list).map((link) => link.split('#')[0]));
    const pages = files.filter((file) => /^docs\/[^/]+\.md$/.test(file)).sort();
    expect(pages.filter((page) => !listed.has(page))).toEqual([]);
  });

  it('nothing points at notes outside the repository', () => {
    const outside = /\.\.\/shared\b|shared\/reference|\b(?:DESIGN|STYLE)\.md\b/;
    const text = files.filter((file) => file !== self && statSync(join(ROOT, file)).size < 2_000_000);
    expect(text.filter((file) => outside.test(read(file)))).toEqual([]);
  });
});

describe('the reference checks themselves', () => {
  it('read citations in their several forms, across comment lines', () => {
    const text =
      '// docs/protocols.md 1.2, 1.6). see docs/protocols.md\n * 2.3 and docs/design.md 3.2–3.4; docs/protocols.md §6,' +
      ' docs/protocols.md section 5: (docs/protocols.md 7, q8) docs/develop.md, convention 10 docs/design.md 2.7, 4 KB';
    expect(citations(text).map(({ doc, section }) => `${doc} ${section}`)).toEqual([
      'protocols 1.2',
      'protocols 1.6',
      'protocols 2.3',
      'design 3.2',
      'design 3.4',
      'protocols 6',
      'protocols 5',
      'protocols 7',
      'design 2.7',
      'develop 10',
    ]);
  });

  it('find relative links and headings as GitHub renders them', () => {
    const markdown = '[a](api.md#errors) [b](https://x.org) `[c](no.md)`\n[d]: ../x.md\n```\n[e](f.md)\n```';
    expect(relativeLinks(markdown)).toEqual(['api.md#errors', '../x.md']);
    const headings = '## 1.2 Token-based `auth` (JWT)\n## Tests\n## Tests';
    expect([...headingAnchors(headings)]).toEqual(['12-token-based-auth-jwt', 'tests', 'tests-1']);
  });

  it("find repository paths, not other repositories' ones", () => {
    const text = 'see src/queue/job-queue.ts, libraries/javascript/src/index.ts and `tools/fakes/`.';
    expect(citedPaths(text)).toEqual(['src/queue/job-queue.ts', 'tools/fakes/']);
  });
});
