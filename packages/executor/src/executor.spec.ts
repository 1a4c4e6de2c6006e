import { devWallet, mined } from '@tradeinfra/test-support';
import { getAddress, id, Interface, Signature, TypedDataEncoder, type HDNodeWallet } from 'ethers';
import { decodeExecutorRevert, encodeCancel, encodeCancelMerkle, encodeExecute, encodeExecuteMerkle, encodeInvalidateNonces } from './artifact.js';
import {
  BUY_INTENT_TYPE,
  buyIntentDigest,
  buyIntentFee,
  executorDomain,
  MERKLE_BUY_INTENT_TYPES,
  merkleBuyIntentDigest,
  merkleStructHash,
  nonceBit,
  recoverBuyIntentSigner,
  recoverMerkleBuyIntentSigner,
  signBuyIntent,
  signMerkleBuyIntent,
  type BuyIntent,
  type MerkleBuyIntent,
} from './intent.js';
import { compileSolidity } from './solc.js';
import { CHAIN_ID, COINBASE, ETH, ExecutorChain, FEE_RECIPIENT, getAmountOut, SUPPLY, ZERO_ADDRESS } from './test/chain.js';

/**
 * The IntentExecutor on a hardhat node with WETH9 and the Uniswap V2 factory and router from
 * npm. Wallets are the node's development accounts (their keys sign the intents, the node sends
 * their transactions); `relayer` sends every `execute`. No transaction pays a gas price, so the
 * coinbase's balance moves by the bribes alone.
 */
describe('IntentExecutor', () => {
  let chain: ExecutorChain;
  /** A token launched in beforeAll, traded by the tests that do not need a fresh launch. */
  let token: string;
  const relayer = devWallet(1);
  /** Signs what is not theirs. */
  const stranger = devWallet(2);
  /** Trades on the pools. */
  const trader = devWallet(3);
  /** One for each test that buys (the node unlocks ACCOUNTS development accounts). */
  const wallets = Array.from({ length: 40 }, (_, i) => devWallet(i + 4));
  let nextWallet = 0;
  let nextNonce = 1n;
  /** A funded wallet of its own for each test (5 WETH, executor approved for all). */
  async function freshWallet(weth = 5n * ETH): Promise<HDNodeWallet> {
    const w = wallets[nextWallet++]!;
    await chain.fund(w.address, weth);
    return w;
  }

  async function intentFor(wallet: HDNodeWallet, overrides: Partial<BuyIntent> = {}): Promise<BuyIntent> {
    const now = (await chain.block()).timestamp;
    return {
      wallet: wallet.address,
      token,
      amount: ETH / 10n + 99n, // a fee that rounds down
      bribe: ETH / 100n + 7n,
      expiry: now + 3600n,
      minIn: 0n,
      minOut: 0n,
      feeBps: 100,
      feeRecipient: FEE_RECIPIENT,
      firstOrFail: false,
      nonce: nextNonce++,
      ...overrides,
    };
  }

  /** Balances that a buy moves: the wallet's WETH and tokens, the fee recipient's and coinbase's ether, the executor's holdings. */
  async function balances(wallet: string, tok = token) {
    return {
      walletWeth: await chain.wethBalance(wallet),
      walletToken: await chain.dex.balanceOf(tok, wallet),
      feeRecipient: await chain.nativeBalance(FEE_RECIPIENT),
      coinbase: await chain.nativeBalance(COINBASE),
      executorWeth: await chain.wethBalance(chain.executor),
      executorNative: await chain.nativeBalance(chain.executor),
      executorToken: await chain.dex.balanceOf(tok, chain.executor),
    };
  }

  const executeData = async (intent: BuyIntent, signer: HDNodeWallet) => encodeExecute(intent, await signBuyIntent(signer, intent, chain.target));

  beforeAll(async () => {
    chain = await ExecutorChain.start();
    token = await chain.launchedToken(SUPPLY / 10n, 10n * ETH);
  }, 120_000);

  afterAll(async () => {
    await chain?.stop();
  });

  describe('the EIP-712 message', () => {
    it('is the same struct, domain and digest in TypeScript and in the contract', async () => {
      const wallet = wallets[wallets.length - 1]!;
      const intent = await intentFor(wallet, { firstOrFail: true, feeBps: 250 });
      expect(BUY_INTENT_TYPE).toBe(
        'BuyIntent(address wallet,address token,uint256 amount,uint256 bribe,uint256 expiry,uint256 minIn,uint256 minOut,uint16 feeBps,address feeRecipient,bool firstOrFail,uint256 nonce)',
      );
      expect(await chain.view('BUY_INTENT_TYPEHASH')).toBe(id(BUY_INTENT_TYPE));
      expect(await chain.view('DOMAIN_SEPARATOR')).toBe(TypedDataEncoder.hashDomain(executorDomain(chain.target)));
      const domain = (await chain.call(chain.executor, chain.iface.encodeFunctionData('eip712Domain'))) as string;
      const [, name, version, chainId, verifyingContract] = chain.iface.decodeFunctionResult('eip712Domain', domain);
      expect([name, version, chainId, (verifyingContract as string).toLowerCase()]).toEqual(['OPL', '1', BigInt(CHAIN_ID), chain.executor]);
      expect(await chain.view('hashBuyIntent', [intent])).toBe(buyIntentDigest(intent, chain.target));

      const signature = await signBuyIntent(wallet, intent, chain.target);
      expect(recoverBuyIntentSigner(intent, signature, chain.target)).toBe(wallet.address);
      expect(recoverBuyIntentSigner({ ...intent, minOut: 1n }, signature, chain.target)).not.toBe(wallet.address);
    });

    it('places every nonce in one bit of the wallet’s bitmap', () => {
      expect(nonceBit(0n)).toEqual({ wordPos: 0n, mask: 1n });
      expect(nonceBit(255n)).toEqual({ wordPos: 0n, mask: 1n << 255n });
      expect(nonceBit(256n + 3n)).toEqual({ wordPos: 1n, mask: 8n });
      expect(buyIntentFee(ETH / 10n + 99n, 100)).toBe(ETH / 1000n); // 99 wei × 1 % rounds down to 0
    });
  });

  describe('execute', () => {
    it('takes exactly amount + bribe, buys for the wallet, pays fee and bribe to the wei and keeps nothing', async () => {
      const wallet = await freshWallet();
      const intent = await intentFor(wallet);
      const fee = (intent.amount * BigInt(intent.feeBps)) / 10_000n;
      const amountIn = intent.amount - fee;
      const pool = await chain.pool(token);
      const expectedOut = getAmountOut(amountIn, pool.reserveWeth, pool.reserveToken);
      intent.minOut = expectedOut; // exactly what it gets: still enough
      const before = await balances(wallet.address);
      const relayerBefore = await chain.nativeBalance(relayer.address);

      const { receipt } = await chain.execute(relayer.address, intent, wallet);

      expect(receipt?.status).toBe('0x1');
      const after = await balances(wallet.address);
      expect(before.walletWeth - after.walletWeth).toBe(intent.amount + intent.bribe);
      expect(after.walletToken - before.walletToken).toBe(expectedOut);
      expect(after.feeRecipient - before.feeRecipient).toBe(fee);
      expect(fee).toBe(ETH / 1000n);
      expect(after.coinbase - before.coinbase).toBe(intent.bribe);
      expect([after.executorWeth, after.executorNative, after.executorToken]).toEqual([0n, 0n, 0n]);
      expect(await chain.nativeBalance(relayer.address)).toBe(relayerBefore); // gas price 0: the relayer moved nothing
      expect(await chain.view('isNonceUsed', [wallet.address, intent.nonce])).toBe(true);
      expect(chain.events(receipt!)).toEqual([
        {
          name: 'IntentExecuted',
          args: {
            wallet: wallet.address,
            digest: buyIntentDigest(intent, chain.target),
            token: getAddress(token),
            nonce: intent.nonce,
            amountIn,
            amountOut: expectedOut,
            fee,
            bribe: intent.bribe,
          },
        },
      ]);
    });

    it('needs no fee and no bribe, and then unwraps nothing', async () => {
      const wallet = await freshWallet();
      const intent = await intentFor(wallet, { feeBps: 0, feeRecipient: ZERO_ADDRESS, bribe: 0n });
      const before = await balances(wallet.address);
      const { receipt } = await chain.execute(relayer.address, intent, wallet);
      expect(receipt?.status).toBe('0x1');
      const after = await balances(wallet.address);
      expect(before.walletWeth - after.walletWeth).toBe(intent.amount);
      expect(after.walletToken).toBeGreaterThan(before.walletToken);
      expect([after.feeRecipient - before.feeRecipient, after.coinbase - before.coinbase]).toEqual([0n, 0n]);
    });

    it('runs once: the same signed intent again reverts, as does another intent with the same nonce', async () => {
      const wallet = await freshWallet();
      const intent = await intentFor(wallet);
      const signature = await signBuyIntent(wallet, intent, chain.target);
      expect((await chain.execute(relayer.address, intent, wallet, signature)).receipt?.status).toBe('0x1');
      const before = await balances(wallet.address);

      const replay = await chain.execute(relayer.address, intent, wallet, signature);
      expect(replay.receipt?.status).toBe('0x0');
      expect(await chain.revertOf(replay.hash)).toEqual({ name: 'NonceAlreadyUsed', args: { wallet: wallet.address, nonce: intent.nonce.toString() } });
      const sibling = { ...intent, amount: intent.amount * 2n };
      expect(await chain.wouldRevert(relayer.address, await executeData(sibling, wallet))).toMatchObject({ name: 'NonceAlreadyUsed' });
      expect(await balances(wallet.address)).toEqual(before);
    });

    it('refuses a signature by anyone but the wallet, or made for another chain or executor', async () => {
      const wallet = await freshWallet();
      const intent = await intentFor(wallet);
      const bad = [
        await signBuyIntent(stranger, intent, chain.target),
        await signBuyIntent(wallet, intent, { chainId: 1, executor: chain.executor }),
        await signBuyIntent(wallet, intent, { chainId: CHAIN_ID, executor: chain.dex.router }),
        '0x',
        `0x${'11'.repeat(65)}`,
      ];
      for (const signature of bad) {
        expect(await chain.wouldRevert(relayer.address, encodeExecute(intent, signature))).toEqual({ name: 'InvalidSignature', args: {} });
      }
      const before = await balances(wallet.address);
      const sent = await chain.execute(relayer.address, intent, wallet, bad[0]);
      expect(sent.receipt?.status).toBe('0x0');
      expect(await chain.revertOf(sent.hash)).toEqual({ name: 'InvalidSignature', args: {} });
      expect(await balances(wallet.address)).toEqual(before);
      expect(await chain.view('isNonceUsed', [wallet.address, intent.nonce])).toBe(false);
    });

    it('refuses the signature when any single field was changed after signing', async () => {
      const wallet = await freshWallet();
      const intent = await intentFor(wallet, { minIn: 1n, minOut: 1n });
      const signature = await signBuyIntent(wallet, intent, chain.target);
      expect(await chain.wouldRevert(relayer.address, encodeExecute(intent, signature))).toBeNull();
      const tampered: Partial<BuyIntent>[] = [
        { wallet: stranger.address },
        { token: chain.dex.weth },
        { amount: intent.amount + 1n },
        { bribe: intent.bribe + 1n },
        { expiry: intent.expiry + 1n },
        { minIn: 0n },
        { minOut: 0n },
        { feeBps: 99 },
        { feeRecipient: relayer.address },
        { firstOrFail: true },
        { nonce: intent.nonce + 1n },
      ];
      expect(tampered.map((t) => Object.keys(t)[0]).sort()).toEqual(Object.keys(intent).sort());
      for (const change of tampered) {
        const revert = await chain.wouldRevert(relayer.address, encodeExecute({ ...intent, ...change }, signature));
        expect({ change, revert }).toEqual({ change, revert: { name: 'InvalidSignature', args: {} } });
      }
    });

    it('executes up to the second of expiry, and not after', async () => {
      const wallet = await freshWallet();
      const now = (await chain.block()).timestamp;
      const late = await intentFor(wallet, { expiry: now + 100n });
      const onTime = await intentFor(wallet, { expiry: now + 100n });

      await chain.setNextTimestamp(now + 100n);
      expect((await chain.execute(relayer.address, onTime, wallet)).receipt?.status).toBe('0x1');
      const before = await balances(wallet.address);
      await chain.setNextTimestamp(now + 101n);
      const sent = await chain.execute(relayer.address, late, wallet);
      expect(sent.receipt?.status).toBe('0x0');
      expect(await chain.revertOf(sent.hash)).toEqual({ name: 'Expired', args: { expiry: (now + 100n).toString(), timestamp: (now + 101n).toString() } });
      expect(await balances(wallet.address)).toEqual(before);
    });

    it('takes nothing when the allowance is below amount + bribe, and takes exactly that much when it is enough', async () => {
      const wallet = await freshWallet();
      const intent = await intentFor(wallet);
      await chain.approve(wallet.address, intent.amount + intent.bribe - 1n);
      const before = await balances(wallet.address);

      const short = await chain.execute(relayer.address, intent, wallet);
      expect(short.receipt?.status).toBe('0x0');
      expect(await chain.revertOf(short.hash)).toEqual({ name: 'Error', args: { message: '' } }); // WETH9's bare require
      expect(await balances(wallet.address)).toEqual(before);
      expect(await chain.view('isNonceUsed', [wallet.address, intent.nonce])).toBe(false);

      await chain.approve(wallet.address, intent.amount + intent.bribe);
      expect((await chain.execute(relayer.address, intent, wallet)).receipt?.status).toBe('0x1');
      expect(before.walletWeth - (await chain.wethBalance(wallet.address))).toBe(intent.amount + intent.bribe);
      expect(await chain.allowance(wallet.address)).toBe(0n);
    });

    it('takes nothing when the wallet holds less WETH than amount + bribe', async () => {
      const wallet = await freshWallet(ETH / 10n);
      const intent = await intentFor(wallet);
      const sent = await chain.execute(relayer.address, intent, wallet);
      expect(sent.receipt?.status).toBe('0x0');
      expect(await chain.revertOf(sent.hash)).toEqual({ name: 'Error', args: { message: '' } });
      expect(await chain.wethBalance(wallet.address)).toBe(ETH / 10n);
    });

    it('checks the fee terms and minIn before anything moves', async () => {
      const wallet = await freshWallet();
      const cases: [Partial<BuyIntent>, unknown][] = [
        [{ feeBps: 10_001 }, { name: 'FeeBpsTooHigh', args: { feeBps: '10001' } }],
        [{ feeRecipient: ZERO_ADDRESS }, { name: 'FeeRecipientMissing', args: {} }],
        [{ feeBps: 10_000 }, { name: 'NothingToBuy', args: {} }],
        [{ amount: 0n }, { name: 'NothingToBuy', args: {} }],
        [
          { amount: 1000n, minIn: 991n },
          { name: 'MinInNotMet', args: { amountIn: '990', minIn: '991' } },
        ],
      ];
      for (const [change, expected] of cases) {
        const intent = await intentFor(wallet, change);
        expect({ change, revert: await chain.wouldRevert(relayer.address, await executeData(intent, wallet)) }).toEqual({ change, revert: expected });
      }
      // A fee that rounds down to 0 needs no recipient; minIn equal to amount − fee is enough.
      const tiny = await intentFor(wallet, { amount: 99n, feeBps: 100, feeRecipient: ZERO_ADDRESS, minIn: 99n, bribe: 0n });
      expect(await chain.wouldRevert(relayer.address, await executeData(tiny, wallet))).toBeNull();
    });

    it('reverts before paying anything when the token has no pool, or a pool without liquidity', async () => {
      const wallet = await freshWallet();
      const unlaunched = await chain.dex.deployToken('PlainToken', [SUPPLY]);
      const noPool = await intentFor(wallet, { token: unlaunched });
      expect(await chain.wouldRevert(relayer.address, await executeData(noPool, wallet))).toEqual({ name: 'NoPool', args: { token: getAddress(unlaunched) } });

      const factory = chain.dex.a.UniswapV2Factory!.iface;
      await mined(chain.node, chain.dex.owner, chain.dex.factory, factory.encodeFunctionData('createPair', [unlaunched, chain.dex.weth]));
      const pair = await chain.dex.pairOf(unlaunched);
      const empty = await intentFor(wallet, { token: unlaunched });
      const before = await balances(wallet.address, unlaunched);
      const sent = await chain.execute(relayer.address, empty, wallet);
      expect(sent.receipt?.status).toBe('0x0');
      expect(await chain.revertOf(sent.hash)).toEqual({ name: 'NoLiquidity', args: { pair: getAddress(pair) } });
      expect(await balances(wallet.address, unlaunched)).toEqual(before);
    });

    it('reverts, paying nothing, when a swap earlier in the block moved the price past minOut', async () => {
      const wallet = await freshWallet();
      const intent = await intentFor(wallet);
      const pool = await chain.pool(token);
      const amountIn = intent.amount - buyIntentFee(intent.amount, intent.feeBps);
      intent.minOut = getAmountOut(amountIn, pool.reserveWeth, pool.reserveToken); // the quote before the front-run
      const data = await executeData(intent, wallet);
      expect(await chain.wouldRevert(relayer.address, data)).toBeNull();
      const before = await balances(wallet.address);
      const frontRunnerBefore = await chain.dex.balanceOf(token, trader.address);

      const [front, ours] = await chain.inOneBlock(async () => [
        await chain.swapEthForTokens(trader.address, token, ETH / 2n, intent.expiry),
        await chain.send(relayer.address, chain.executor, data),
      ]);
      const [frontReceipt, ourReceipt] = [await chain.receipt(front.hash), await chain.receipt(ours.hash)];
      expect(frontReceipt?.blockNumber).toBe(ourReceipt?.blockNumber);
      expect(frontReceipt?.status).toBe('0x1');
      expect(ourReceipt?.status).toBe('0x0');

      // What the wallet would have got after the front-run's swap: below minOut.
      const frontOut = getAmountOut(ETH / 2n, pool.reserveWeth, pool.reserveToken);
      expect((await chain.dex.balanceOf(token, trader.address)) - frontRunnerBefore).toBe(frontOut);
      const afterFront = getAmountOut(amountIn, pool.reserveWeth + ETH / 2n, pool.reserveToken - frontOut);
      expect(await chain.revertOf(ours.hash)).toEqual({
        name: 'InsufficientOutput',
        args: { amountOut: afterFront.toString(), minOut: intent.minOut.toString() },
      });
      expect(await balances(wallet.address)).toEqual(before);
      expect(await chain.view('isNonceUsed', [wallet.address, intent.nonce])).toBe(false);
    });

    it('holds a tax token to minOut on what the wallet really received', async () => {
      const wallet = await freshWallet();
      const taxTo = '0x7a70000000000000000000000000000000007a70';
      const taxed = await chain.launchedToken(SUPPLY / 10n, 10n * ETH, 'TaxToken', [SUPPLY, taxTo, 1000]); // 10 % per transfer
      const pool = await chain.pool(taxed);
      const first = await intentFor(wallet, { token: taxed });
      const amountIn = first.amount - buyIntentFee(first.amount, first.feeBps);
      const gross = getAmountOut(amountIn, pool.reserveWeth, pool.reserveToken);
      const received = gross - (gross * 1000n) / 10_000n;

      // The pair sends `gross` (above minOut), the wallet gets `received` (below): reverts.
      first.minOut = received + 1n;
      expect(gross).toBeGreaterThan(first.minOut);
      const before = await balances(wallet.address, taxed);
      const sent = await chain.execute(relayer.address, first, wallet);
      expect(sent.receipt?.status).toBe('0x0');
      expect(await chain.revertOf(sent.hash)).toEqual({
        name: 'InsufficientOutput',
        args: { amountOut: received.toString(), minOut: (received + 1n).toString() },
      });
      expect(await balances(wallet.address, taxed)).toEqual(before);

      const second = { ...first, minOut: received, nonce: nextNonce++ };
      const ok = await chain.execute(relayer.address, second, wallet);
      expect(ok.receipt?.status).toBe('0x1');
      expect((await chain.dex.balanceOf(taxed, wallet.address)) - before.walletToken).toBe(received);
      expect(chain.events(ok.receipt!)[0]?.args.amountOut).toBe(received);
    });

    it('refuses native coin from anyone but WETH', async () => {
      const sent = await chain.send(relayer.address, chain.executor, '0x', 1n);
      expect(sent.receipt?.status).toBe('0x0');
      expect(await chain.revertOf(sent.hash)).toEqual({ name: 'NativeNotAccepted', args: {} });
    });
  });

  describe('firstOrFail', () => {
    it('buys in the block that gave the pool its first liquidity, even behind other buys of that block', async () => {
      const [a, b] = [await freshWallet(), await freshWallet()];
      const fresh = await chain.dex.deployToken('PlainToken', [SUPPLY]);
      const intents = [await intentFor(a, { token: fresh, firstOrFail: true }), await intentFor(b, { token: fresh, firstOrFail: true })];
      const data = [await executeData(intents[0]!, a), await executeData(intents[1]!, b)];
      await chain.approveLaunch(fresh);
      const sent = await chain.inOneBlock(async () => [
        await chain.sendLaunch(fresh, SUPPLY / 10n, 10n * ETH),
        await chain.send(relayer.address, chain.executor, data[0]!),
        await chain.send(relayer.address, chain.executor, data[1]!),
      ]);
      const hashes = sent.map((s) => s.hash);
      const receipts = await Promise.all(hashes.map((h) => chain.receipt(h)));
      expect(receipts.map((r) => r?.status)).toEqual(['0x1', '0x1', '0x1']);
      expect(new Set(receipts.map((r) => r?.blockNumber)).size).toBe(1);
      expect(await chain.dex.balanceOf(fresh, a.address)).toBeGreaterThan(0n);
      expect(await chain.dex.balanceOf(fresh, b.address)).toBeGreaterThan(0n);
    });

    it('refuses the next block, whether or not the pool was traded in between', async () => {
      const wallet = await freshWallet();
      const fresh = await chain.launchedToken();
      const launch = await chain.block();
      const untouched = await intentFor(wallet, { token: fresh, firstOrFail: true });
      const traded = await intentFor(wallet, { token: fresh, firstOrFail: true });
      const pair = await chain.dex.pairOf(fresh);
      const before = await balances(wallet.address, fresh);

      // Nothing touched the pool since the launch: its cumulative prices are still 0, but its
      // last update is older than this block.
      await chain.setNextTimestamp(launch.timestamp + 12n);
      const first = await chain.execute(relayer.address, untouched, wallet);
      expect(first.receipt?.status).toBe('0x0');
      expect(await chain.revertOf(first.hash)).toEqual({ name: 'NotLaunchBlock', args: { pair: getAddress(pair) } });
      const stillZero = await chain.pool(fresh);
      expect([stillZero.cumulative0, stillZero.cumulative1, stillZero.timestampLast]).toEqual([0n, 0n, launch.timestamp]);

      // Someone buys first in a later block: the pool's update there starts its cumulative prices.
      await chain.setNextTimestamp(launch.timestamp + 24n);
      const { hash } = await chain.inOneBlock(async () => {
        await chain.swapEthForTokens(trader.address, fresh, ETH / 100n, untouched.expiry);
        return chain.execute(relayer.address, traded, wallet);
      });
      expect((await chain.receipt(hash))?.status).toBe('0x0');
      expect(await chain.revertOf(hash)).toMatchObject({ name: 'NotLaunchBlock' });
      const moved = await chain.pool(fresh);
      expect(moved.cumulative0 + moved.cumulative1).toBeGreaterThan(0n);
      expect(await balances(wallet.address, fresh)).toEqual(before);

      // Without firstOrFail, the same buy goes through.
      expect((await chain.execute(relayer.address, await intentFor(wallet, { token: fresh }), wallet)).receipt?.status).toBe('0x1');
    });

    it('cannot tell the launch block from a later block with the same timestamp (the documented limit)', async () => {
      const wallet = await freshWallet();
      const fresh = await chain.launchedToken();
      const launch = await chain.block();
      await chain.setNextTimestamp(launch.timestamp); // allowed on this node (allowBlocksWithSameTimestamp)
      const sent = await chain.execute(relayer.address, await intentFor(wallet, { token: fresh, firstOrFail: true }), wallet);
      expect(BigInt(sent.receipt!.blockNumber)).toBe(launch.number + 1n);
      expect(sent.receipt?.status).toBe('0x1');
    });
  });

  describe('Merkle’s 5-field BuyIntent (POST /v1/wallet/intent)', () => {
    const merkleIntent = async (overrides: Partial<MerkleBuyIntent> = {}): Promise<MerkleBuyIntent> => ({
      token,
      amount: ETH / 10n,
      bribe: ETH / 100n + 3n,
      expiry: (await chain.block()).timestamp + 3600n,
      minIn: 0n,
      ...overrides,
    });
    const executeMerkle = async (intent: MerkleBuyIntent, wallet: string, signature: string, amountOutMin = 0n) =>
      chain.send(relayer.address, chain.executor, encodeExecuteMerkle(intent, wallet, amountOutMin, signature));

    it('is Merkle’s type string, in the same OPL/1 domain, with the same digest in TypeScript and in the contract', async () => {
      const intent = await merkleIntent();
      expect(TypedDataEncoder.from(MERKLE_BUY_INTENT_TYPES).encodeType('BuyIntent')).toBe(
        'BuyIntent(address token,uint256 amount,uint256 bribe,uint256 expiry,uint256 minIn)',
      );
      expect(await chain.view('MERKLE_BUY_INTENT_TYPEHASH')).toBe(id('BuyIntent(address token,uint256 amount,uint256 bribe,uint256 expiry,uint256 minIn)'));
      expect(await chain.view('merkleStructHash', [intent])).toBe(merkleStructHash(intent));
      expect(await chain.view('hashMerkleBuyIntent', [intent])).toBe(merkleBuyIntentDigest(intent, chain.target));
      const wallet = wallets[wallets.length - 2]!;
      const signature = await signMerkleBuyIntent(wallet, intent, chain.target);
      expect(recoverMerkleBuyIntentSigner(intent, signature, chain.target)).toBe(wallet.address);
    });

    it('buys amount for the wallet, pays the bribe to the wei, and refuses a replay of the same signature', async () => {
      const wallet = await freshWallet();
      const intent = await merkleIntent();
      const signature = await signMerkleBuyIntent(wallet, intent, chain.target);
      const pool = await chain.pool(token);
      const expectedOut = getAmountOut(intent.amount, pool.reserveWeth, pool.reserveToken);
      const before = await balances(wallet.address);

      const { receipt } = await executeMerkle(intent, wallet.address, signature, expectedOut);

      expect(receipt?.status).toBe('0x1');
      const after = await balances(wallet.address);
      expect(before.walletWeth - after.walletWeth).toBe(intent.amount + intent.bribe);
      expect(after.walletToken - before.walletToken).toBe(expectedOut);
      expect(after.coinbase - before.coinbase).toBe(intent.bribe);
      expect(after.feeRecipient).toBe(before.feeRecipient);
      expect([after.executorWeth, after.executorNative, after.executorToken]).toEqual([0n, 0n, 0n]);
      const structHash = merkleStructHash(intent);
      expect(await chain.view('merkleIntentUsed', [wallet.address, structHash])).toBe(true);
      expect(chain.events(receipt!)).toEqual([
        {
          name: 'MerkleIntentExecuted',
          args: {
            wallet: wallet.address,
            digest: merkleBuyIntentDigest(intent, chain.target),
            token: getAddress(token),
            structHash,
            amountIn: intent.amount,
            amountOut: expectedOut,
            bribe: intent.bribe,
          },
        },
      ]);

      const replay = await executeMerkle(intent, wallet.address, signature);
      expect(replay.receipt?.status).toBe('0x0');
      expect(await chain.revertOf(replay.hash)).toEqual({ name: 'IntentAlreadyUsed', args: { wallet: wallet.address, structHash } });
      expect(await balances(wallet.address)).toEqual(after);
      // Another wallet signing the very same terms is not blocked by the first one's use.
      const other = await freshWallet();
      expect((await executeMerkle(intent, other.address, await signMerkleBuyIntent(other, intent, chain.target))).receipt?.status).toBe('0x1');
    });

    it('executes up to the second of expiry and not after; checks minIn, the signer and the relayer’s minimum before anything moves', async () => {
      const wallet = await freshWallet();
      const now = (await chain.block()).timestamp;
      const intent = await merkleIntent({ expiry: now + 100n });
      const signature = await signMerkleBuyIntent(wallet, intent, chain.target);
      const before = await balances(wallet.address);
      await chain.setNextTimestamp(now + 101n);
      const late = await executeMerkle(intent, wallet.address, signature);
      expect(await chain.revertOf(late.hash)).toEqual({ name: 'Expired', args: { expiry: String(now + 100n), timestamp: String(now + 101n) } });

      const tooSmall = await merkleIntent({ minIn: ETH / 10n + 1n });
      expect(
        await chain.wouldRevert(relayer.address, encodeExecuteMerkle(tooSmall, wallet.address, 0n, await signMerkleBuyIntent(wallet, tooSmall, chain.target))),
      ).toEqual({
        name: 'MinInNotMet',
        args: { amountIn: String(ETH / 10n), minIn: String(ETH / 10n + 1n) },
      });
      const fresh = await merkleIntent();
      const byStranger = await signMerkleBuyIntent(stranger, fresh, chain.target);
      expect(await chain.wouldRevert(relayer.address, encodeExecuteMerkle(fresh, wallet.address, 0n, byStranger))).toEqual({
        name: 'InvalidSignature',
        args: {},
      });
      const ours = await signMerkleBuyIntent(wallet, fresh, chain.target);
      // A 64-byte (compact) signature and a changed field are not the wallet's signature either.
      expect(await chain.wouldRevert(relayer.address, encodeExecuteMerkle({ ...fresh, bribe: fresh.bribe + 1n }, wallet.address, 0n, ours))).toMatchObject({
        name: 'InvalidSignature',
      });
      expect(await chain.wouldRevert(relayer.address, encodeExecuteMerkle(fresh, wallet.address, 10n ** 30n, ours))).toMatchObject({
        name: 'InsufficientOutput',
      });
      const compact = Signature.from(ours).compactSerialized;
      expect(await chain.wouldRevert(relayer.address, encodeExecuteMerkle(fresh, wallet.address, 0n, compact))).toEqual({ name: 'InvalidSignature', args: {} });
      expect(await balances(wallet.address)).toEqual(before);
      expect((await executeMerkle(fresh, wallet.address, ours)).receipt?.status).toBe('0x1');
    });

    it('lets the wallet cancel a Merkle intent, which then cannot execute', async () => {
      const wallet = await freshWallet();
      const intent = await merkleIntent();
      const signature = await signMerkleBuyIntent(wallet, intent, chain.target);
      const receipt = await chain.ok(wallet.address, chain.executor, encodeCancelMerkle(intent));
      const structHash = merkleStructHash(intent);
      expect(chain.events(receipt)).toEqual([
        { name: 'MerkleIntentCancelled', args: { wallet: wallet.address, digest: merkleBuyIntentDigest(intent, chain.target), structHash } },
      ]);
      expect(await chain.wouldRevert(relayer.address, encodeExecuteMerkle(intent, wallet.address, 0n, signature))).toEqual({
        name: 'IntentAlreadyUsed',
        args: { wallet: wallet.address, structHash },
      });
    });
  });

  describe('revoking', () => {
    it('lets the wallet cancel an intent, which then cannot execute', async () => {
      const wallet = await freshWallet();
      const intent = await intentFor(wallet);
      const signature = await signBuyIntent(wallet, intent, chain.target);
      const receipt = await chain.ok(wallet.address, chain.executor, encodeCancel(intent));
      expect(chain.events(receipt)).toEqual([
        { name: 'IntentCancelled', args: { wallet: wallet.address, digest: buyIntentDigest(intent, chain.target), nonce: intent.nonce } },
      ]);
      expect(await chain.view('isNonceUsed', [wallet.address, intent.nonce])).toBe(true);
      const before = await balances(wallet.address);
      const sent = await chain.execute(relayer.address, intent, wallet, signature);
      expect(sent.receipt?.status).toBe('0x0');
      expect(await chain.revertOf(sent.hash)).toMatchObject({ name: 'NonceAlreadyUsed' });
      expect(await balances(wallet.address)).toEqual(before);
      // Cancelling twice, or after execution, is refused too.
      expect(await chain.wouldRevert(wallet.address, encodeCancel(intent))).toMatchObject({ name: 'NonceAlreadyUsed' });
    });

    it('refuses a cancel from anyone but the wallet', async () => {
      const wallet = await freshWallet();
      const intent = await intentFor(wallet);
      const sent = await chain.send(relayer.address, chain.executor, encodeCancel(intent));
      expect(sent.receipt?.status).toBe('0x0');
      expect(await chain.revertOf(sent.hash)).toEqual({ name: 'NotWallet', args: { caller: relayer.address, wallet: wallet.address } });
      expect(await chain.view('isNonceUsed', [wallet.address, intent.nonce])).toBe(false);
      expect((await chain.execute(relayer.address, intent, wallet)).receipt?.status).toBe('0x1');
    });

    it('revokes many nonces in one transaction, and only the wallet’s own', async () => {
      const wallet = await freshWallet();
      const base = 5n * 256n; // a word of its own
      const [a, b, c] = [
        await intentFor(wallet, { nonce: base + 1n }),
        await intentFor(wallet, { nonce: base + 200n }),
        await intentFor(wallet, { nonce: base + 2n }),
      ];
      const mask = nonceBit(a.nonce).mask | nonceBit(b.nonce).mask;
      // Someone else invalidating the same word touches only their own bitmap.
      await chain.ok(relayer.address, chain.executor, encodeInvalidateNonces(5n, mask));
      expect(await chain.view('isNonceUsed', [wallet.address, a.nonce])).toBe(false);

      const receipt = await chain.ok(wallet.address, chain.executor, encodeInvalidateNonces(5n, mask));
      expect(chain.events(receipt)).toEqual([{ name: 'NoncesInvalidated', args: { wallet: wallet.address, wordPos: 5n, mask } }]);
      expect(await chain.wouldRevert(relayer.address, await executeData(a, wallet))).toMatchObject({ name: 'NonceAlreadyUsed' });
      expect(await chain.wouldRevert(relayer.address, await executeData(b, wallet))).toMatchObject({ name: 'NonceAlreadyUsed' });
      expect((await chain.execute(relayer.address, c, wallet)).receipt?.status).toBe('0x1');
    });
  });

  describe('contract wallets and reentrancy', () => {
    const SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";

/// A minimal ERC-1271 wallet: accepts what its owner's key signed; the owner makes it call out.
contract ContractWallet {
    address public immutable owner;
    constructor(address owner_) { owner = owner_; }
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(hash, signature);
        return err == ECDSA.RecoverError.NoError && signer == owner ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }
    function exec(address to, uint256 value, bytes calldata data) external payable {
        require(msg.sender == owner, "not owner");
        (bool ok,) = to.call{value: value}(data);
        require(ok, "call failed");
    }
    receive() external payable {}
}

/// A fee recipient that, when paid, tries to execute another intent through the executor and
/// records how that ended.
contract Reenterer {
    address public immutable executor;
    bytes public payload;
    bytes public lastError;
    bool public reentered;
    constructor(address executor_) { executor = executor_; }
    function arm(bytes calldata payload_) external { payload = payload_; }
    receive() external payable {
        (bool ok, bytes memory ret) = executor.call(payload);
        reentered = ok;
        lastError = ret;
    }
}`;
    let artifacts: Record<string, { abi: unknown[]; bytecode: string; iface: Interface }>;

    beforeAll(() => {
      const compiled = compileSolidity({ 'TestContracts.sol': SOURCE }).contracts['TestContracts.sol']!;
      artifacts = Object.fromEntries(Object.entries(compiled).map(([name, c]) => [name, { ...c, iface: new Interface(c.abi as never) }]));
    });

    async function deploy(name: string, args: unknown[]): Promise<string> {
      const { bytecode, iface } = artifacts[name]!;
      return (await chain.ok(relayer.address, null, bytecode + iface.encodeDeploy(args).slice(2))).contractAddress!.toLowerCase();
    }

    it('executes for an ERC-1271 wallet when its owner signed, and refuses another key', async () => {
      const owner = await freshWallet(0n);
      const walletAddress = await deploy('ContractWallet', [owner.address]);
      const cw = artifacts.ContractWallet!.iface;
      const weth = chain.dex.a.WETH9!.iface;
      await chain.ok(owner.address, walletAddress, cw.encodeFunctionData('exec', [chain.dex.weth, ETH, weth.encodeFunctionData('deposit')]), ETH);
      await chain.ok(
        owner.address,
        walletAddress,
        cw.encodeFunctionData('exec', [chain.dex.weth, 0n, weth.encodeFunctionData('approve', [chain.executor, ETH])]),
      );

      const intent = await intentFor(owner, { wallet: walletAddress });
      const notTheOwner = await signBuyIntent(stranger, intent, chain.target);
      expect(await chain.wouldRevert(relayer.address, encodeExecute(intent, notTheOwner))).toEqual({ name: 'InvalidSignature', args: {} });

      const before = await balances(walletAddress);
      const { receipt } = await chain.execute(relayer.address, intent, owner); // signed by the owner's key
      expect(receipt?.status).toBe('0x1');
      const after = await balances(walletAddress);
      expect(before.walletWeth - after.walletWeth).toBe(intent.amount + intent.bribe);
      expect(after.walletToken).toBeGreaterThan(before.walletToken);
      expect(chain.events(receipt!)[0]?.args.wallet).toBe(getAddress(walletAddress));
    });

    it('refuses a second execute from inside the first (a fee recipient calling back)', async () => {
      const [payer, victim] = [await freshWallet(), await freshWallet()];
      const reenterer = await deploy('Reenterer', [chain.executor]);
      const inner = await intentFor(victim);
      await chain.ok(relayer.address, reenterer, artifacts.Reenterer!.iface.encodeFunctionData('arm', [await executeData(inner, victim)]));
      const outer = await intentFor(payer, { feeRecipient: reenterer });
      const victimBefore = await balances(victim.address);

      const { receipt } = await chain.execute(relayer.address, outer, payer);
      expect(receipt?.status).toBe('0x1');
      const r = artifacts.Reenterer!.iface;
      const read = async (name: string) => r.decodeFunctionResult(name, await chain.call(reenterer, r.encodeFunctionData(name)))[0];
      expect(await read('reentered')).toBe(false);
      expect(decodeExecutorRevert(await read('lastError'))).toEqual({ name: 'ReentrancyGuardReentrantCall', args: {} });
      expect(await chain.nativeBalance(reenterer)).toBe(buyIntentFee(outer.amount, outer.feeBps));
      expect(await chain.view('isNonceUsed', [victim.address, inner.nonce])).toBe(false);
      expect(await chain.wethBalance(victim.address)).toBe(victimBefore.walletWeth);
    });
  });
});
