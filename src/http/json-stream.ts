import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { setImmediate as turn } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { answeredNotModified, hashTag } from './conditional';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The pieces of a JSON array, a page's items a piece, each item written by the route's compiled
 * serializer of `itemSchema` (cached by Fastify): joined, they are what the array's serializer
 * would have written whole.
 */
async function* arrayPieces<T>(
  reply: FastifyReply,
  pages: AsyncIterable<readonly T[]>,
  itemSchema: object,
): AsyncGenerator<string> {
  const stringify = reply.compileSerializationSchema(itemSchema as Record<string, unknown>) as (
    item: T,
  ) => string;
  let empty = true;
  for await (const page of pages) {
    if (page.length === 0) continue;
    yield (empty ? '[' : ',') + page.map(stringify).join(',');
    empty = false;
  }
  yield empty ? '[]' : ']';
}

/**
 * Sends a JSON array as it is read, a page at a time (a database page), so a listing of 100 000
 * records neither holds the event loop while one giant string is built nor keeps it in memory. The
 * first piece is read before the answer starts, so a failure there is still answered as a problem;
 * a later one ends the answer early (the status is sent by then), which the client sees as a broken
 * body, never as a short list.
 */
export async function sendArrayPages<T>(
  reply: FastifyReply,
  pages: AsyncIterable<readonly T[]>,
  itemSchema: object,
): Promise<FastifyReply> {
  const pieces = arrayPieces(reply, pages, itemSchema);
  const first = await pieces.next();
  async function* all(): AsyncGenerator<string> {
    if (!first.done) yield first.value;
    yield* pieces;
  }
  return reply.type(JSON_TYPE).send(Readable.from(all(), { objectMode: false }));
}

/**
 * Answers a conditional route's JSON array, read a page at a time: each page is written to a piece
 * as it comes, with the event loop let go between pages, and the ETag is the hash of the whole
 * answer, as for any conditional answer (`contentTag`), so a client that has this version gets its
 * 304 before anything is sent. The answer is held until then, in pieces: no string of a quarter
 * gigabyte is built, and none beyond V8's longest.
 */
export async function answerArrayPages<T>(
  request: FastifyRequest,
  reply: FastifyReply,
  pages: AsyncIterable<readonly T[]>,
  itemSchema: object,
): Promise<FastifyReply> {
  const hash = createHash('sha256');
  const pieces: string[] = [];
  for await (const piece of arrayPieces(reply, pages, itemSchema)) {
    hash.update(piece);
    pieces.push(piece);
    await turn();
  }
  if (answeredNotModified(request, reply, hashTag(hash))) return reply;
  return reply.type(JSON_TYPE).send(Readable.from(pieces, { objectMode: false }));
}
