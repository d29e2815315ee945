/**
 * Label rendering benchmark: a 999-parcel shipment as PDF and as ZPL.
 *
 *   node --import tsx bench/labels.ts [parcels]
 *
 * Prints time, output size and peak RSS. The PDF goes to a sink that takes every chunk, so the
 * figures show the renderer, not a disk; a run with a slow sink (`--slow`) shows memory stays flat
 * when the consumer lags.
 */
import { Writable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { finished } from 'node:stream/promises';
import { toLabelModels } from '../src/labels/model';
import { renderPdf } from '../src/labels/pdf';
import { sampleShipment } from '../src/labels/sample';
import { renderZpl } from '../src/labels/zpl';

const parcels = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 999);
const slow = process.argv.includes('--slow');
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

let peak = process.memoryUsage().rss;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 5);

async function pdfRun(label: string) {
  const labels = toLabelModels(sampleShipment(parcels));
  let bytes = 0;
  const sink = new Writable({
    highWaterMark: 64 * 1024,
    write(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (slow) setTimeout(done, 1);
      else done();
    },
  });
  const before = process.memoryUsage().rss;
  peak = before;
  const t0 = performance.now();
  await renderPdf(labels, sink);
  await finished(sink);
  const ms = performance.now() - t0;
  peak = Math.max(peak, process.memoryUsage().rss);
  console.log(
    `${label}: ${parcels} pages in ${ms.toFixed(0)} ms (${(ms / parcels).toFixed(2)} ms/page), ${mb(bytes)}, RSS before ${mb(before)}, peak ${mb(peak)} (+${mb(peak - before)})`,
  );
}

await pdfRun('PDF warm-up');
await pdfRun(slow ? 'PDF (slow sink)' : 'PDF');

const labels = toLabelModels(sampleShipment(parcels));
const t0 = performance.now();
const zpl = await text(renderZpl(labels));
console.log(
  `ZPL: ${parcels} blocks in ${(performance.now() - t0).toFixed(0)} ms, ${mb(Buffer.byteLength(zpl))}`,
);
console.log(`process max RSS (getrusage): ${mb(process.resourceUsage().maxRSS * 1024)}`);
clearInterval(sampler);
