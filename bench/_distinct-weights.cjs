// autocannon setupRequest (loaded in its worker): every request asks the price of another weight and
// volume (100 000 combinations), so no answer is replayed from the answer cache and each one is
// priced (bench/price.ts).
let n = 0;
module.exports = (request) => {
  n = (n + 1) % 100_000;
  const base = request.path.replace(/&(Weight|VolumeD3)=[^&]*/g, '');
  request.path = `${base}&Weight=${1 + (n % 1000)}&VolumeD3=${1 + Math.floor(n / 1000)}`;
  return request;
};
