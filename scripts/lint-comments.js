/**
 * Checks the comments of the TypeScript and JavaScript sources (src, test, scripts, web, bench, clients/node and
 * the root's config files) and exits 1 naming `file:line` for:
 * - a doc comment right above another one (no line between): the first documents nothing;
 * - a repository path a comment names (`src/…`, `test/…`, `docs/….md`, a `<name>.ts` beside the
 *   file) that does not exist, either from the repository root or from the comment's folder.
 * URLs, absolute paths, npm package paths, globs, placeholders (`<id>`, `…`) and what a build or
 * a run writes (`dist/`, `data/`) are not paths here.
 * `node scripts/lint-comments.js` (`npm run lint` runs it).
 */
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const SCANNED = ['src', 'test', 'scripts', 'web', 'bench', 'clients/node'];
const SOURCE_FILE = /\.(ts|js|mjs|cjs)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'coverage', 'test-output', 'data']);

/** The first segments of a path that name the repository's own folders. */
const REPO_PATH = /^(src|test|scripts|docs|web|clients|bench|deploy)\//;
/** What a file name a comment may name ends with. */
const FILE_NAME = /^[\w./-]*[A-Za-z][\w-]*\.(ts|js|mjs|cjs|md)$/;
/** What makes a word a URL, a pattern, a placeholder or a build's output rather than a path. */
const NOT_A_PATH = /:\/\/|[*<>{}$…|=~]|^@|^\/|node_modules|^(dist|coverage|data|test-output)\//;
/** Product names written like files: Node.js, Next.js. */
const PRODUCT = /^[A-Z][A-Za-z]*\.js$/;
/** After these characters, a `/` starts a regular expression, not a division. */
const BEFORE_REGEX = new Set([...'(,=:[!&|?{};+-*%<>~^'].map((c) => c.charCodeAt(0)));
const REGEX_KEYWORDS = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'void', 'yield', 'await', 'delete', 'throw', 'new']);
const [TAB, NL, CR, SPACE, DQUOTE, DOLLAR, SQUOTE, RPAREN, STAR, SLASH, LBRACKET, BACKSLASH, RBRACKET, BACKTICK, LBRACE, RBRACE] = [
  ...'\t\n\r "$\')*/[\\]`{}',
].map((c) => c.charCodeAt(0));
/** Letters, digits, `_` and `$`: what a word is made of. */
const isWord = (c) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === DOLLAR;
/** A code that stands for any word, string or closing bracket before a `/` (a division). */
const VALUE = -1;

/** Where each line starts, for `lineAt`. */
const lineStarts = (text) => {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
};

/** The 1-based line of an offset. */
const lineAt = (starts, offset) => {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
};

/** The end of a quoted string starting at `i` (the offset after its closing quote). */
const stringEnd = (text, i) => {
  const quote = text.charCodeAt(i);
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === BACKSLASH) j++;
    else if (c === quote || c === NL) return j + 1;
  }
  return text.length;
};

/** The end of a regular expression literal starting at `i`, its flags included. */
const regexEnd = (text, i) => {
  let inClass = false;
  let j = i + 1;
  for (; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === NL) break;
    if (c === BACKSLASH) j++;
    else if (c === LBRACKET) inClass = true;
    else if (c === RBRACKET) inClass = false;
    else if (c === SLASH && !inClass) break;
  }
  j++;
  while (j < text.length && isWord(text.charCodeAt(j))) j++;
  return j;
};

/**
 * The comments of a JavaScript or TypeScript text: `{ start, end, body, block, doc }`, offsets in
 * the text. Strings, template literals and regular expressions are skipped, so what they hold is
 * never taken for a comment.
 */
const commentsOf = (text) => {
  const comments = [];
  /** For each template literal we are inside a `${…}` of: how many braces are open in it. */
  const templates = [];
  /** The last character that was not blank (comments aside), or VALUE; `wordStart` when that is a word's end. */
  let prev = LBRACE;
  let wordStart = -1;
  let wordEnd = -1;
  const after = (code) => {
    prev = code;
    wordStart = -1;
  };
  let i = 0;
  /** Reads template text from `i` up to its end or its next `${`. */
  const templateText = () => {
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === BACKSLASH) i++;
      else if (c === BACKTICK) {
        i++;
        after(VALUE);
        return;
      } else if (c === DOLLAR && text.charCodeAt(i + 1) === LBRACE) {
        i += 2;
        templates.push(0);
        after(LBRACE);
        return;
      }
    }
  };
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === SPACE || c === NL || c === TAB || c === CR) {
      i++;
      continue;
    }
    if (isWord(c)) {
      wordStart = i;
      while (i < text.length && isWord(text.charCodeAt(i))) i++;
      wordEnd = i;
      prev = VALUE;
      continue;
    }
    const next = text.charCodeAt(i + 1);
    if (c === SLASH && (next === SLASH || next === STAR)) {
      const block = next === STAR;
      const close = block ? text.indexOf('*/', i + 2) : text.indexOf('\n', i);
      const end = close === -1 ? text.length : block ? close + 2 : close;
      const body = text.slice(i, end);
      comments.push({ start: i, end, body, block, doc: block && /^\/\*\*(?![*/])/.test(body) });
      i = end;
      continue;
    }
    if (c === SLASH && (BEFORE_REGEX.has(prev) || (wordStart !== -1 && REGEX_KEYWORDS.has(text.slice(wordStart, wordEnd))))) {
      i = regexEnd(text, i);
      after(VALUE);
      continue;
    }
    if (c === DQUOTE || c === SQUOTE) {
      i = stringEnd(text, i);
      after(VALUE);
      continue;
    }
    if (c === BACKTICK) {
      i++;
      templateText();
      continue;
    }
    if (templates.length > 0 && c === LBRACE) templates[templates.length - 1]++;
    if (templates.length > 0 && c === RBRACE) {
      if (templates[templates.length - 1] === 0) {
        templates.pop();
        i++;
        templateText();
        continue;
      }
      templates[templates.length - 1]--;
    }
    after(c === RPAREN || c === RBRACKET ? VALUE : c);
    i++;
  }
  return comments;
};

/** Where a path may be, from the root: as written, and from the file's folder (never above the root). */
const placesOf = (file, p) =>
  [path.posix.normalize(p), path.posix.normalize(path.posix.join(path.posix.dirname(file), p))].filter(
    (q) => !q.startsWith('../') && q !== '..',
  );

/** A path named in a comment, as written, when it is one this check resolves. */
const pathOf = (word) => {
  const p = word
    .replace(/^[.,:;!?]+(?=\w)/, '')
    .replace(/[#?].*$/, '')
    .replace(/(:\d+(-\d+)?)?[.,:;!?]*$/, '');
  if (NOT_A_PATH.test(p) || PRODUCT.test(p)) return undefined;
  if (REPO_PATH.test(p) || FILE_NAME.test(p)) return p;
  return undefined;
};

/** A path exists when it is a file or folder, or a module written without its extension. */
const resolves = (exists, file, p) =>
  placesOf(file, p).some((q) => ['', '.ts', '.js', '/index.ts', '/index.js'].some((ext) => exists(`${q.replace(/\/$/, '')}${ext}`)));

/**
 * The problems of one file's text, as `{ line, message }`. `file` is its path from the root;
 * `exists(p)` says whether a path from the root exists; `isPackage(name)` whether a first segment
 * is an installed package (`io-ts/Decoder.js`).
 */
const problemsOf = (file, text, exists, isPackage = () => false) => {
  const starts = lineStarts(text);
  const comments = commentsOf(text);
  const problems = [];
  comments.forEach((c, k) => {
    const next = comments[k + 1];
    if (c.doc && next?.doc && /^[ \t]*(\r?\n)?[ \t]*$/.test(text.slice(c.end, next.start))) {
      problems.push({
        line: lineAt(starts, c.start),
        message: 'a doc comment stacked on another documents nothing: merge the two, or move it to what it documents',
      });
    }
    for (const m of c.body.matchAll(/[^\s`'"()[\],;]+/g)) {
      const p = pathOf(m[0]);
      if (p === undefined || resolves(exists, file, p)) continue;
      if (!REPO_PATH.test(p) && p.includes('/') && isPackage(p.split('/')[0])) continue;
      problems.push({ line: lineAt(starts, c.start + m.index), message: `names ${p}, which does not exist` });
    }
  });
  return problems;
};

const sourcesUnder = (dir) =>
  fs
    .readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory()
        ? SKIPPED_DIRS.has(e.name)
          ? []
          : sourcesUnder(`${dir}/${e.name}`)
        : SOURCE_FILE.test(e.name) && !e.name.endsWith('.d.ts')
          ? [`${dir}/${e.name}`]
          : [],
    );

const main = () => {
  const files = [
    ...fs.readdirSync(ROOT).filter((f) => SOURCE_FILE.test(f) && fs.statSync(path.join(ROOT, f)).isFile()),
    ...SCANNED.filter((d) => fs.existsSync(path.join(ROOT, d))).flatMap(sourcesUnder),
  ];
  const exists = (p) => fs.existsSync(path.join(ROOT, p));
  const isPackage = (name) => fs.existsSync(path.join(ROOT, 'node_modules', name));
  const found = files.flatMap((file) =>
    problemsOf(file, fs.readFileSync(path.join(ROOT, file), 'utf8'), exists, isPackage).map((p) => `${file}:${p.line}: ${p.message}`),
  );
  for (const line of found) console.error(line);
  if (found.length > 0) process.exit(1);
};

if (require.main === module) main();

module.exports = { commentsOf, problemsOf };
