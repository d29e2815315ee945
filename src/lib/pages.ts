/**
 * Rows read a page at a time by keyset: `read(after, limit)` answers at most `limit` rows in the
 * read's order after the row whose key is `after` (none: from the start), and `keyOf` gives a row's
 * key. Each page is one indexed statement, so an answer of 100 000 rows is read in pieces; a page
 * shorter than `limit` is the last.
 */
export async function* keysetPages<R, K>(
  read: (after: K | undefined, limit: number) => Promise<R[]>,
  keyOf: (row: R) => K,
  limit: number,
): AsyncGenerator<R[]> {
  let after: K | undefined;
  for (;;) {
    const rows = await read(after, limit);
    yield rows;
    const last = rows.at(-1);
    if (rows.length < limit || last === undefined) return;
    after = keyOf(last);
  }
}

/** Each page of `pages` mapped item by item with `f`. */
export async function* mapPages<T, U>(
  pages: AsyncIterable<readonly T[]>,
  f: (item: T) => U,
): AsyncGenerator<U[]> {
  for await (const page of pages) yield page.map(f);
}

/** Each page of `pages` with every item replaced by the items `f` gives it (none, one or several). */
export async function* flatMapPages<T, U>(
  pages: AsyncIterable<readonly T[]>,
  f: (item: T) => readonly U[],
): AsyncGenerator<U[]> {
  for await (const page of pages) yield page.flatMap(f);
}

/** An answer of no pages: an empty array, as the streamed routes write it. */
export async function* noPages<T>(): AsyncGenerator<T[]> {}
