// The simulate bench's delaying proxy on its own (the bench starts test-support's JsonRpcProxy
// in its own process):
//   node bench/dist/simulate/delay-proxy.js --upstream http://127.0.0.1:8545 [--port 0] [--delay 20] [--emulate-access-list]
// GET /__proxy/stats answers the counters as JSON; POST /__proxy/reset zeroes them.
import { JsonRpcProxy } from '@tradeinfra/test-support';

const args = process.argv.slice(2);
const opt = (name: string, fallback: string | null): string | null => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : fallback;
};
const upstream = opt('upstream', null);
if (!upstream) {
  process.stderr.write('usage: node bench/dist/simulate/delay-proxy.js --upstream http://127.0.0.1:8545 [--port 0] [--delay 20] [--emulate-access-list]\n');
  process.exit(64);
}
const proxy = await JsonRpcProxy.start({
  upstream,
  port: Number(opt('port', '0')),
  delayMs: Number(opt('delay', '20')),
  emulateAccessList: args.includes('--emulate-access-list'),
});
process.stdout.write(`delay proxy listening on ${proxy.url} → ${upstream} (+${proxy.delayMs} ms per request)\n`);
const stop = () => void proxy.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
