// The bench's signing webhook, a child process of its own (so its CPU never shares the bench's
// event loop): test-support's SigningWebhook (HMAC check, `GET /__stats`), signing with
// libsecp256k1 on BENCH_SIGNER_THREADS worker threads (0: the main thread). Keys come in
// BENCH_SIGNER_KEYS (comma-separated, hardhat's development keys), the tenant's secret in
// BENCH_SIGNER_SECRET, the port in BENCH_SIGNER_PORT.
import { SigningWebhook } from '@tradeinfra/test-support';
import { Wallet } from 'ethers';
import { makeHashSigner, signerPool } from './signer.js';

const keys = (process.env.BENCH_SIGNER_KEYS ?? '').split(',').filter(Boolean);
const secret = process.env.BENCH_SIGNER_SECRET ?? '';
const threads = Number(process.env.BENCH_SIGNER_THREADS ?? '0');
const port = Number(process.env.BENCH_SIGNER_PORT ?? '0');
if (keys.length === 0 || !secret) throw new Error('BENCH_SIGNER_KEYS and BENCH_SIGNER_SECRET are required');

const webhook = await new SigningWebhook(
  () => secret,
  keys.map((k) => new Wallet(k)),
  { signer: signerPool(keys, threads), hashSigner: makeHashSigner(keys), port, keepRequests: false },
).start();
process.stdout.write(`signing webhook listening on 127.0.0.1:${webhook.port} (${keys.length} keys, ${threads} signing thread(s))\n`);
process.on('SIGTERM', () => process.exit(0));
