import { ErrorName } from '@tradeinfra/contracts';
import { ChainError, ChainErrorCode } from '../chain/chain.errors.js';
import { asSimulationError, fromChainError, SimulationError, SimulationErrorCode } from './simulation.errors.js';

describe('the chain layer’s errors as the simulation sends them', () => {
  const payload = (code: ChainErrorCode, message: string, details: Record<string, unknown> | null = null) =>
    fromChainError(new ChainError(code, message, details)).toPayload();

  it('an unknown chain or block is a validation error of that field', () => {
    expect(payload(ChainErrorCode.UnknownChain, 'chain 9 has no RPC configured (chains with one: 1)')).toEqual({
      name: ErrorName.Validation,
      message: 'chainId: chain 9 has no RPC configured (chains with one: 1)',
      details: [{ path: 'chainId', message: 'chain 9 has no RPC configured (chains with one: 1)' }],
    });
    expect(payload(ChainErrorCode.UnknownBlock, 'block 7 does not exist on chain 1 (in the future?)')).toEqual({
      name: ErrorName.Validation,
      message: 'blockNumber: block 7 does not exist on chain 1 (in the future?)',
      details: [{ path: 'blockNumber', message: 'block 7 does not exist on chain 1 (in the future?)' }],
    });
  });

  it('an upstream that cannot be reached, does not answer in time or answers wrong is an UpstreamError with the same message', () => {
    for (const code of [ChainErrorCode.Unreachable, ChainErrorCode.Timeout, ChainErrorCode.BadAnswer]) {
      expect(payload(code, 'The chain RPC (chain 1) did not answer within 300 ms')).toEqual({
        name: ErrorName.Upstream,
        message: 'The chain RPC (chain 1) did not answer within 300 ms',
        details: null,
      });
    }
  });

  it('a spent read budget is Unprocessable upstream_budget_exceeded', () => {
    expect(payload(ChainErrorCode.ReadBudgetSpent, 'too many reads', { limit: 5, used: 3, wanted: 3 })).toEqual({
      name: ErrorName.Unprocessable,
      message: 'too many reads',
      details: { reason: 'upstream_budget_exceeded', limit: 5, used: 3, wanted: 3 },
    });
  });

  it('leaves any other error as it is', () => {
    const rule = new SimulationError(SimulationErrorCode.Rule, 'Nonce mismatch');
    const bug = new Error('bug');
    expect(asSimulationError(rule)).toBe(rule);
    expect(asSimulationError(bug)).toBe(bug);
    expect(asSimulationError(new ChainError(ChainErrorCode.Timeout, 'slow'))).toMatchObject({ code: SimulationErrorCode.Upstream, message: 'slow' });
  });
});
