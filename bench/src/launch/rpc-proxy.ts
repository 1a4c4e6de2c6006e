// The RPC timing proxy (BENCH_RPC_TIMING=1), a child process of its own: test-support's
// JsonRpcProxy in front of the node (BENCH_PROXY_UPSTREAM) on BENCH_PROXY_PORT, keeping a timing
// record of every request. The client is told apart by the URL path it was given (/intent,
// /sim); `GET /__proxy/records` answers the records since the last call.
import { JsonRpcProxy } from '@tradeinfra/test-support';

const proxy = await JsonRpcProxy.start({
  upstream: process.env.BENCH_PROXY_UPSTREAM ?? '',
  port: Number(process.env.BENCH_PROXY_PORT ?? '0'),
  recordLimit: 200_000,
});
process.stdout.write(`rpc proxy listening on 127.0.0.1:${proxy.port} → ${process.env.BENCH_PROXY_UPSTREAM}\n`);
process.on('SIGTERM', () => process.exit(0));
