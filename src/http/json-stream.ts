import { Readable } from 'node:stream';

/**
 * A JSON array answered as it is read: `pages` yields the items a page at a time (a database page),
 * each written with JSON.stringify, so a listing of 100 000 records neither holds the event loop
 * while one giant string is built nor keeps it in memory. The first page is read before this
 * returns, so a failure there is still answered as a problem; a later one ends the answer early
 * (the status is sent by then), which the client sees as a broken body, never as a short list.
 */
export async function jsonArrayStream<T>(pages: AsyncIterable<readonly T[]>): Promise<Readable> {
  const iterator = pages[Symbol.asyncIterator]();
  const first = await iterator.next();
  async function* chunks(): AsyncGenerator<string> {
    let page = first;
    let separator = '[';
    while (!page.done) {
      if (page.value.length > 0) {
        yield separator + page.value.map((item) => JSON.stringify(item)).join(',');
        separator = ',';
      }
      page = await iterator.next();
    }
    yield separator === '[' ? '[]' : ']';
  }
  return Readable.from(chunks(), { objectMode: false });
}
