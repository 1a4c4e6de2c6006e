import { createServer, type AddressInfo, type Server } from 'node:net';
import { TestNatsServer } from '@tradeinfra/test-support';
import { startMicroservice } from './index.js';
import { plainNatsEnv } from './nats-connect.js';
import { checkNatsServer, MIN_NATS_SERVER_VERSION, natsVersionAtLeast, requireNatsServerVersion } from './nats-server.js';

/** A stand-in NATS server that announces `version` in its INFO and answers PING. */
async function fakeNats(version: string): Promise<{ url: string; server: Server }> {
  const server = createServer((socket) => {
    socket.write(`INFO ${JSON.stringify({ server_id: 'fake', version, proto: 1, headers: true, max_payload: 1048576, host: '127.0.0.1', port: 0 })}\r\n`);
    socket.on('data', (chunk) => {
      if (chunk.toString().includes('PING')) socket.write('PONG\r\n');
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `nats://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('nats-server version', () => {
  it('compares versions', () => {
    expect(natsVersionAtLeast('2.9.10', '2.9.4')).toBe(true);
    expect(natsVersionAtLeast('2.9.4', '2.9.4')).toBe(true);
    expect(natsVersionAtLeast('v2.11.0-beta.2', '2.11.0')).toBe(true);
    expect(natsVersionAtLeast('2.10.22', '2.11.0')).toBe(false);
    expect(natsVersionAtLeast('2.9.3', '2.9.4')).toBe(false);
    expect(natsVersionAtLeast('1.99.99', '2.9.4')).toBe(false);
    expect(natsVersionAtLeast(undefined, '2.9.4')).toBe(false);
    expect(natsVersionAtLeast('nonsense', '2.9.4')).toBe(false);
  });

  it('refuses a server below the minimum, naming both versions', () => {
    expect(() => requireNatsServerVersion('2.8.4', 'intent-service')).toThrow(
      `intent-service needs nats-server ${MIN_NATS_SERVER_VERSION} or newer (with JetStream); the server at NATS_URL is 2.8.4. Upgrade nats-server.`,
    );
    expect(() => requireNatsServerVersion(undefined, 'x')).toThrow(/did not say its version/);
    expect(() => requireNatsServerVersion('2.9.10', 'x')).not.toThrow();
  });

  it('reads the version of a real server (this machine’s) and accepts it', async () => {
    const nats = await TestNatsServer.start();
    try {
      await expect(checkNatsServer(plainNatsEnv(nats.url), 'test')).resolves.toMatch(/^\d+\.\d+\.\d+/);
    } finally {
      await nats.dispose();
    }
  });

  it('refuses to go on with a server that announces an old version', async () => {
    const { url, server } = await fakeNats('2.8.4');
    try {
      await expect(checkNatsServer(plainNatsEnv(url), 'payout-service')).rejects.toThrow(/payout-service needs nats-server 2\.9\.4 or newer .* is 2\.8\.4/);
      // Every service starts through startMicroservice: it refuses before building anything.
      class EmptyModule {}
      await expect(
        startMicroservice({ module: EmptyModule }, { name: 'intent-service', queue: 'q', nats: plainNatsEnv(url), logRequests: false }, false),
      ).rejects.toThrow(/intent-service needs nats-server/);
    } finally {
      server.close();
    }
  });
});
