export { ChainRpc, RpcUnavailable, type RpcCall, type RpcReplyItem } from '@tradeinfra/service-kit';
