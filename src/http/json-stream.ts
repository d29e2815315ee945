import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { setImmediate as turn } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { answeredNotModified, hashTag } from './conditional';

/**
 * A route's serializer of one item of its 200 answer (the array's item schema), compiled once and
 * cached by Fastify: the pieces joined are what the array's serializer would have written.
 */
export const itemSerializer = <T>(reply: FastifyReply, itemSchema: object): ((item: T) => string) =>
  reply.compileSerializationSchema(itemSchema as Record<string, unknown>) as (item: T) => string;

const openOrSeparate = (first: boolean) => (first ? '[' : ',');

/**
 * A JSON array answered as it is read: `pages` yields the items a page at a time (a database page),
 * each written with `stringify`, so a listing of 100 000 records neither holds the event loop while
 * one giant string is built nor keeps it in memory. The first page is read before this returns, so a
 * failure there is still answered as a problem; a later one ends the answer early (the status is
 * sent by then), which the client sees as a broken body, never as a short list.
 */
export async function jsonArrayStream<T>(
  pages: AsyncIterable<readonly T[]>,
  stringify: (item: T) => string,
): Promise<Readable> {
  const iterator = pages[Symbol.asyncIterator]();
  const first = await iterator.next();
  async function* chunks(): AsyncGenerator<string> {
    let page = first;
    let empty = true;
    while (!page.done) {
      if (page.value.length > 0) {
        yield openOrSeparate(empty) + page.value.map(stringify).join(',');
        empty = false;
      }
      page = await iterator.next();
    }
    yield empty ? '[]' : ']';
  }
  return Readable.from(chunks(), { objectMode: false });
}

/**
 * Answers a conditional route's JSON array, read a page at a time: each page is written to a piece
 * of the answer as it comes, with the event loop let go between pages, and the ETag is the hash of
 * the whole answer, as for any conditional answer (`contentTag`), so a client that has this version
 * gets its 304 before anything is sent. The answer is held until then, in pieces: no string of a
 * quarter gigabyte is built, and none beyond V8's longest.
 */
export async function answerArrayPages<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  pages: AsyncIterable<readonly T[]>,
  stringify: (item: T) => string,
): Promise<FastifyReply> {
  const hash = createHash('sha256');
  const pieces: string[] = [];
  const add = (piece: string) => {
    hash.update(piece);
    pieces.push(piece);
  };
  for await (const page of pages) {
    if (page.length === 0) continue;
    add(openOrSeparate(pieces.length === 0) + page.map(stringify).join(','));
    await turn();
  }
  add(pieces.length === 0 ? '[]' : ']');
  if (answeredNotModified(request, reply, hashTag(hash))) return reply;
  return reply.type('application/json; charset=utf-8').send(Readable.from(pieces, { objectMode: false }));
}
