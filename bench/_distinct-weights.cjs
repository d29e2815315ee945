// autocannon setupRequest (loaded in its worker): every request asks the price of another weight, so
// no answer is replayed from the answer cache and each one is priced (bench/price.ts).
let n = 0;
module.exports = (request) => {
  n = (n + 1) % 100_000;
  request.path = `${request.path.replace(/&Weight=[^&]*/, '')}&Weight=${(25 + n / 1000).toFixed(3)}`;
  return request;
};
