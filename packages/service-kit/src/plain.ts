// `@tradeinfra/service-kit/plain`: the parts with no Nest, TypeORM or NATS behind them, for code that
// runs in worker threads (the simulation workers), where loading those would cost each thread
// seconds of start-up for nothing.
export { ChainRpc, NodeBehind, type ChainRpcOptions, type EndpointState, type EndpointStatus } from './chain-rpc.js';
export { RpcEndpoint, RpcError, RpcUnavailable, type RpcCall, type RpcEndpointOptions, type RpcReplyItem } from './json-rpc.js';
export { keccak256Bytes, useFastKeccak } from './keccak.js';
export { ServiceError } from './service-error.js';
