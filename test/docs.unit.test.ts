import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import GithubSlugger from 'github-slugger';
import { expect, test } from 'vitest';

// The docs are read as the integrator's map of the project: every file, folder, script and link they
// name must exist in a fresh clone (build output and the runtime `var/` are not in one, and no doc
// may point into them as if they were).

const root = join(import.meta.dirname, '..');
const TRACKED_FOLDERS = ['src', 'test', 'bench', 'docs', 'scripts', 'sdk', 'portal', 'data', '.ci'];

function markdownFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1))
    .filter((path) => !path.includes('node_modules'));
}

const docs = ['README.md', ...markdownFiles('docs'), ...markdownFiles('bench'), ...markdownFiles('sdk')];
const texts = new Map<string, string>();
/** A file's text, read once however many links point into it. */
const text = (doc: string) => {
  if (!texts.has(doc)) texts.set(doc, readFileSync(join(root, doc), 'utf8'));
  return texts.get(doc) as string;
};
const scripts = Object.keys(JSON.parse(text('package.json')).scripts);
/** The first capture group of every match ('' where it matched nothing). */
const captured = (source: string, pattern: RegExp) => [...source.matchAll(pattern)].map((m) => m[1] ?? '');

const anchors = new Map<string, Set<string>>();
/** The anchors GitHub gives a document's headings, worked out once per document. */
function anchorsOf(doc: string): Set<string> {
  if (!anchors.has(doc)) {
    const slugger = new GithubSlugger();
    const headings = captured(text(doc).replace(/^```[\s\S]*?^```/gm, ''), /^#{1,6} (.+)$/gm);
    anchors.set(doc, new Set(headings.map((heading) => slugger.slug(heading.replace(/`/g, '')))));
  }
  return anchors.get(doc) as Set<string>;
}

test('the docs are found', () => {
  expect(docs).toEqual(expect.arrayContaining(['README.md', 'docs/architecture.md', 'bench/README.md']));
});

test.each(docs)('%s names only paths that exist', (doc) => {
  const folders = TRACKED_FOLDERS.map((f) => f.replace('.', '\\.')).join('|');
  const named = captured(text(doc), new RegExp(`(?<![\\w/.-])((?:${folders})/[\\w./@-]*\\w)`, 'g'));
  const missing = named.filter(
    (path) => !existsSync(join(root, path)) && !existsSync(join(root, dirname(doc), path)),
  );
  expect(missing).toEqual([]);
});

test.each(docs)('%s runs only npm scripts that exist', (doc) => {
  const missing = captured(text(doc), /npm run ([\w:-]+)/g).filter((name) => !scripts.includes(name));
  expect(missing).toEqual([]);
});

test.each(docs)('%s links only to files and headings that exist', (doc) => {
  const broken = captured(text(doc), /\]\(([^)\s]+)\)/g).filter((link) => {
    if (/^[a-z]+:|^\//.test(link)) return false; // a web address or a route of the server
    const [target = '', anchor] = link.split('#');
    const file = target === '' ? doc : normalize(join(dirname(doc), target));
    if (!existsSync(join(root, file))) return true;
    return anchor !== undefined && file.endsWith('.md') && !anchorsOf(file).has(anchor);
  });
  expect(broken).toEqual([]);
});

test('every setting the server reads has its row in the README', () => {
  const read = new Set(captured(text('src/config.ts'), /\benv\.([A-Z][A-Z0-9_]*)/g));
  const rows = new Set(captured(text('README.md'), /^\| `([A-Z][A-Z0-9_]*)` \|/gm));
  expect([...read].filter((name) => !rows.has(name))).toEqual([]);
  expect(read.size).toBeGreaterThan(30);
});

test('every KOLLI_ variable the README and the guides name is one the code knows', () => {
  const code = ['src', 'test', 'scripts', 'portal', 'sdk']
    .flatMap((folder) =>
      readdirSync(join(root, folder), { withFileTypes: true, recursive: true })
        .filter(
          (e) => e.isFile() && /\.(ts|js|mjs|cjs)$/.test(e.name) && !e.parentPath.includes('node_modules'),
        )
        .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8')),
    )
    .join('\n');
  const guides = ['README.md', ...markdownFiles('docs')];
  const unknown = guides.flatMap((doc) =>
    captured(text(doc), /\b(KOLLI_[A-Z0-9_]*[A-Z0-9])\b/g)
      .filter((name) => !new RegExp(`\\b${name}\\b`).test(code))
      .map((name) => `${doc}: ${name}`),
  );
  expect(unknown).toEqual([]);
});
