// autocannon setupRequest (loaded in its worker) for bench/price.ts: every request another price
// question — weight, volume, sender and receiver postal codes and services all vary (BENCH_ZIPS, set
// by the bench, lists codes of the register) — so no two requests in a run ask the same.
const zips = (process.env.BENCH_ZIPS ?? '0150,5003').split(',');
const services = [[], ['16'], ['35'], ['16', '35']];
let n = 0;
module.exports = (request) => {
  n++;
  const from = zips[n % zips.length];
  const to = zips[Math.floor(n / zips.length) % zips.length];
  const weight = 1 + (n % 35);
  const volume = 1 + (Math.floor(n / 7) % 200);
  const extra = services[Math.floor(n / 3) % services.length].map((s) => `&Services=${s}`).join('');
  request.path = `/v3/Calculate/?Customernr=1000&SenderZip=${from}&ReceiverZip=${to}&Weight=${weight}&VolumeD3=${volume}&ProductCode=43${extra}`;
  return request;
};
