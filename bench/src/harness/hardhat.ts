import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, JsonRpc } from '@tradeinfra/test-support';
import type { Children } from './children.js';
import { ROOT } from './log.js';

export interface BenchNode {
  url: string;
  port: number;
  pid: number | undefined;
  version: string;
  config: unknown;
  rpc: JsonRpc;
}

/**
 * `hardhat node` from node_modules, started directly as a supervised child of the bench (its pid
 * is the node, for CPU figures; its output in the run's logs) on a free port, with `network` as
 * its hardhat network config (written to `dir`). Request logging off. (test-support's
 * HardhatNode is the tests' node: fixed settings, output kept in memory.)
 */
export async function startHardhatNode({
  children,
  dir,
  network,
  readyTimeoutMs = 60_000,
}: {
  children: Children;
  dir: string;
  network: Record<string, unknown>;
  readyTimeoutMs?: number;
}): Promise<BenchNode> {
  mkdirSync(dir, { recursive: true });
  const config = { networks: { hardhat: network } };
  writeFileSync(join(dir, 'hardhat.config.cjs'), `module.exports = ${JSON.stringify(config, null, 2)};\n`);
  const port = await freePort();
  const entry = children.start(
    'hardhat',
    process.execPath,
    [
      join(ROOT, 'node_modules/hardhat/internal/cli/bootstrap.js'),
      'node',
      '--hostname',
      '127.0.0.1',
      '--port',
      String(port),
      '--config',
      join(dir, 'hardhat.config.cjs'),
    ],
    {
      cwd: dir,
      env: { ...process.env, HARDHAT_EXPERIMENTAL_ALLOW_NON_LOCAL_INSTALLATION: 'true', HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true', CI: 'true' },
      readyLine: /Started HTTP and WebSocket JSON-RPC server/,
      readyTimeoutMs,
    },
  );
  await entry.ready;
  const url = `http://127.0.0.1:${port}`;
  const rpc = new JsonRpc(url);
  const version = await rpc.call<string>('web3_clientVersion');
  // Hardhat logs every request (with stack traces of reverts); nobody reads it.
  await rpc.call('hardhat_setLoggingEnabled', [false]);
  return { url, port, pid: entry.child.pid, version, config, rpc };
}
