export * from './database.js';
export * from './nats-server.js';
export * from './wait.js';
export * from './rpc.js';
export * from './stream.js';
export * from './hardhat.js';
export * from './local-dex.js';
export * from './relay.js';
