import { PassThrough } from 'node:stream';

/**
 * How many turns of the event loop other work got while `render` wrote to a drained stream: a
 * renderer that draws everything in one go leaves none, one that lets others run leaves one a step.
 */
export async function turnsWhileRendering(render: (out: PassThrough) => Promise<unknown>): Promise<number> {
  let turns = 0;
  let running = true;
  const tick = () => {
    turns++;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const out = new PassThrough();
  out.resume();
  try {
    await render(out);
  } finally {
    running = false;
  }
  return turns;
}
