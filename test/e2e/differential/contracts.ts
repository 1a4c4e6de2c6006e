import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { AbiCoder, Interface, MaxUint256, keccak256, solidityPackedKeccak256, zeroPadValue, toBeHex, type InterfaceAbi } from 'ethers';
import { compileSolidityCached } from '@tradeinfra/test-support';
import { ROOT, type JsonRpc } from './node.js';

const require = createRequire(join(ROOT, 'package.json'));

/**
 * Test contracts, compiled at suite start with the installed solc (wasm, offline; once per install). OpenZeppelin
 * sources come from node_modules through the import callback.
 */
export const SOURCES: Record<string, string> = {
  'Tokens.sol': `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

contract TestToken is ERC20 {
    constructor(string memory name_, string memory symbol_, uint256 supply) ERC20(name_, symbol_) {
        _mint(msg.sender, supply);
    }
}

/// Every transfer between two non-zero addresses pays feeBps of the amount to feeTo.
contract FeeToken is ERC20 {
    address public immutable feeTo;
    uint256 public immutable feeBps;

    constructor(uint256 supply, address feeTo_, uint256 feeBps_) ERC20("Fee Token", "FEE") {
        feeTo = feeTo_;
        feeBps = feeBps_;
        _mint(msg.sender, supply);
    }

    function _update(address from, address to, uint256 value) internal override {
        if (from == address(0) || to == address(0)) return super._update(from, to, value);
        uint256 fee = (value * feeBps) / 10_000;
        super._update(from, feeTo, fee);
        super._update(from, to, value - fee);
    }
}
`,
  'Reverter.sol': `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

contract Reverter {
    error Custom(uint256 code, address who);
    error Bare();
    event Wrote(uint256 indexed v, address by);

    uint256 public stored;
    uint256[] private items;

    function requireSmall(uint256 v) external pure returns (uint256) {
        require(v < 10, "Reverter: value too large");
        return v * 2;
    }
    function divide(uint256 a, uint256 b) external pure returns (uint256) { return a / b; }
    function add(uint256 a, uint256 b) external pure returns (uint256) { return a + b; }
    function checkNot7(uint256 v) external pure returns (uint256) { assert(v != 7); return v; }
    function index(uint256 i) external view returns (uint256) { return items[i]; }
    function custom(uint256 code) external view { revert Custom(code, msg.sender); }
    function bare() external pure { revert Bare(); }
    function empty() external pure { revert(); }
    function raw(bytes calldata data) external pure {
        assembly {
            calldatacopy(0, data.offset, data.length)
            revert(0, data.length)
        }
    }
    function echo(bytes calldata data) external pure returns (bytes memory) { return data; }
    function write(uint256 v) external { stored = v; emit Wrote(v, msg.sender); }
    function writeThenRevert(uint256 v) external {
        stored = v;
        emit Wrote(v, msg.sender);
        revert("Reverter: rolled back");
    }
    function invalidOp() external pure { assembly { invalid() } }
    /// Writes fresh slots until the gas runs out.
    function exhaust() external {
        for (uint256 i = 1000; ; i++) {
            assembly { sstore(i, i) }
        }
    }
    /// Calls this.custom(code) and swallows its revert.
    function catchInner(uint256 code) external returns (bool) {
        try this.custom(code) { return true; } catch (bytes memory) { stored = code; emit Wrote(code, msg.sender); return false; }
    }
}
`,
  'Value.sol': `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

contract Sink {
    event Received(address indexed from, uint256 amount);
    receive() external payable { emit Received(msg.sender, msg.value); }
    fallback() external payable { emit Received(msg.sender, msg.value); }
}

contract Rejecter {
    receive() external payable { revert("Rejecter: no ether"); }
}

contract Forwarder {
    event Forwarded(address indexed to, uint256 amount, bool ok);
    receive() external payable {}

    /// Low-level call with value to each target; a failure is reported, not propagated.
    function fanOut(address[] calldata targets, uint256[] calldata amounts) public payable returns (uint256 ok) {
        for (uint256 i; i < targets.length; i++) {
            (bool s, ) = targets[i].call{value: amounts[i]}("");
            emit Forwarded(targets[i], amounts[i], s);
            if (s) ok++;
        }
    }
    /// fanOut, then revert when asked: everything it moved is undone.
    function relay(address[] calldata targets, uint256[] calldata amounts, bool fail) external payable returns (uint256 ok) {
        ok = fanOut(targets, amounts);
        if (fail) revert("Forwarder: relay failed");
    }
    /// inner.relay{value} inside try/catch.
    function viaTry(Forwarder inner, uint256 value, address[] calldata targets, uint256[] calldata amounts, bool fail)
        external payable returns (bool ok)
    {
        try inner.relay{value: value}(targets, amounts, fail) returns (uint256) { ok = true; } catch { ok = false; }
        emit Forwarded(address(inner), value, ok);
    }
    /// Passes amount along path (forwarders); the last one pays sink.
    function hop(address[] calldata path, address sink, uint256 amount) external payable {
        if (path.length == 0) {
            (bool s, ) = sink.call{value: amount}("");
            require(s, "Forwarder: sink refused");
            return;
        }
        Forwarder(payable(path[0])).hop{value: amount}(path[1:], sink, amount);
    }
    /// Solidity transfer (2300 gas stipend) of the whole balance.
    function sendAll(address payable to) external payable { to.transfer(address(this).balance); }
}

/// Calls anything inside a try/catch, optionally reverting after the call; and STATICCALLs.
contract Caller {
    event Called(bool ok, bytes ret);
    receive() external payable {}

    function tryCall(address target, bytes calldata data, uint256 value, bool revertAfter) external payable returns (bool ok) {
        try this.inner(target, data, value, revertAfter) { ok = true; } catch { ok = false; }
        emit Called(ok, "");
    }
    function inner(address target, bytes calldata data, uint256 value, bool revertAfter) external {
        require(msg.sender == address(this), "Caller: only self");
        (bool s, bytes memory ret) = target.call{value: value}(data);
        emit Called(s, ret);
        if (revertAfter) revert("Caller: revert after");
    }
    function staticCall(address target, bytes calldata data) external view returns (bool ok, bytes memory ret) {
        (ok, ret) = target.staticcall(data);
    }
}

/// Runs other code in its own context: CALLCODE and DELEGATECALL.
contract CallCoder {
    uint256 public slot0;
    event Done(bool ok);
    receive() external payable {}

    function callcode(address target, uint256 value, bytes calldata data) external payable returns (bool ok) {
        assembly {
            let p := mload(0x40)
            calldatacopy(p, data.offset, data.length)
            ok := callcode(gas(), target, value, p, data.length, 0, 0)
        }
        emit Done(ok);
    }
    function delegate(address target, bytes calldata data) external payable returns (bool ok) {
        assembly {
            let p := mload(0x40)
            calldatacopy(p, data.offset, data.length)
            ok := delegatecall(gas(), target, p, data.length, 0, 0)
        }
        emit Done(ok);
    }
}

/// Code meant to run through CALLCODE / DELEGATECALL (it also works called directly).
contract SlotWriter {
    uint256 public slot0;
    event Set(uint256 v, uint256 value);
    function set(uint256 v) external payable { slot0 = v; emit Set(v, msg.value); }
    function fail() external payable { revert("SlotWriter: fail"); }
    function pay(address to, uint256 amount) external payable {
        (bool s, ) = to.call{value: amount}("");
        require(s, "SlotWriter: pay failed");
        emit Set(amount, msg.value);
    }
}
`,
  'Factory.sol': `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

contract Child {
    address public immutable creator;
    uint256 public immutable seed;
    event Born(address indexed self, uint256 seed, uint256 value);

    constructor(uint256 seed_, address payable forwardTo, uint256 forwardAmount) payable {
        creator = msg.sender;
        seed = seed_;
        if (forwardAmount > 0) {
            (bool s, ) = forwardTo.call{value: forwardAmount}("");
            require(s, "Child: forward failed");
        }
        emit Born(address(this), seed_, msg.value);
    }
    receive() external payable {}
    function kill(address payable to) external { selfdestruct(to); }
    function ping() external view returns (uint256 balance, uint256 s) { return (address(this).balance, seed); }
}

contract BadChild {
    constructor() payable { revert("BadChild: no"); }
}

/// Selfdestructs in its constructor (created and destroyed in the same transaction).
contract Kamikaze {
    constructor(address payable to) payable { selfdestruct(to); }
}

contract Factory {
    event Created(address indexed child, uint256 value);
    receive() external payable {}

    function create(uint256 seed, uint256 value, address payable forwardTo, uint256 forwardAmount) public payable returns (address c) {
        c = address(new Child{value: value}(seed, forwardTo, forwardAmount));
        emit Created(c, value);
    }
    function create2(bytes32 salt, uint256 seed, uint256 value, address payable forwardTo, uint256 forwardAmount)
        public payable returns (address c)
    {
        c = address(new Child{salt: salt, value: value}(seed, forwardTo, forwardAmount));
        emit Created(c, value);
    }
    function createMany(uint256 n, uint256 each) external payable returns (address[] memory cs) {
        cs = new address[](n);
        for (uint256 i; i < n; i++) cs[i] = create(i, each, payable(address(0)), 0);
    }
    /// CREATE in assembly: a failing constructor yields address 0 instead of a revert.
    function rawCreate(bytes calldata initCode, uint256 value) external payable returns (address c) {
        assembly {
            let p := mload(0x40)
            calldatacopy(p, initCode.offset, initCode.length)
            c := create(value, p, initCode.length)
        }
        emit Created(c, value);
    }
    /// CREATE2 in assembly: a collision or a failing constructor yields address 0.
    function rawCreate2(bytes calldata initCode, bytes32 salt, uint256 value) external payable returns (address c) {
        assembly {
            let p := mload(0x40)
            calldatacopy(p, initCode.offset, initCode.length)
            c := create2(value, p, initCode.length, salt)
        }
        emit Created(c, value);
    }
    function createAndKill(bytes32 salt, uint256 value, address payable beneficiary) external payable returns (address c) {
        Child ch = new Child{salt: salt, value: value}(0, payable(address(0)), 0);
        ch.kill(beneficiary);
        c = address(ch);
        emit Created(c, value);
    }
    function tryBad(uint256 value) external payable returns (bool ok) {
        try new BadChild{value: value}() returns (BadChild) { ok = true; } catch { ok = false; }
    }
}

contract Bomb {
    event Armed(uint256 balance);
    constructor() payable {}
    receive() external payable {}
    function boom(address payable to) external payable {
        emit Armed(address(this).balance);
        selfdestruct(to);
    }
}
`,
  'State.sol': `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

contract Store {
    event Read(uint256 indexed slot, uint256 value);
    function read(uint256 slot) external view returns (uint256 v) { assembly { v := sload(slot) } }
    function readAndLog(uint256 slot) external returns (uint256 v) {
        assembly { v := sload(slot) }
        emit Read(slot, v);
    }
    function write(uint256 slot, uint256 v) external { assembly { sstore(slot, v) } }
    function fill(uint256 from, uint256 n, uint256 v) external {
        for (uint256 i = from; i < from + n; i++) {
            assembly { sstore(i, v) }
        }
    }
    /// Clearing many slots: the refund hits the cap (gas used / 5).
    function clear(uint256 from, uint256 n) external {
        for (uint256 i = from; i < from + n; i++) {
            assembly { sstore(i, 0) }
        }
    }
    function balanceOf(address who) external view returns (uint256) { return who.balance; }
    function codeOf(address who) external view returns (uint256 size, bytes32 hash) {
        assembly {
            size := extcodesize(who)
            hash := extcodehash(who)
        }
    }
}

contract Counter {
    error Mismatch(uint256 expected, uint256 actual);
    event Incremented(address indexed by, uint256 count);
    event Reset(uint256 previous);

    uint256 public count;
    mapping(address => uint256) public byUser;

    function increment() external returns (uint256) {
        count += 1;
        byUser[msg.sender] += 1;
        emit Incremented(msg.sender, count);
        return count;
    }
    function incrementBy(uint256 n) external returns (uint256) {
        count += n;
        emit Incremented(msg.sender, count);
        return count;
    }
    function expectCount(uint256 expected) external view returns (uint256) {
        if (count != expected) revert Mismatch(expected, count);
        return count;
    }
    /// Clearing a slot earns a gas refund.
    function reset() external {
        emit Reset(count);
        count = 0;
        byUser[msg.sender] = 0;
    }
}

/// EIP-1153 transient storage: cleared at the end of every transaction.
contract Transient {
    event Seen(uint256 value);
    function put(uint256 v) external returns (uint256 seen) {
        assembly {
            seen := tload(0)
            tstore(0, v)
        }
        emit Seen(seen);
    }
    function get() external view returns (uint256 v) { assembly { v := tload(0) } }
    /// put, then read it back through a nested call (same transaction).
    function putThenCall(uint256 v) external returns (uint256) {
        assembly { tstore(0, v) }
        return this.get();
    }
}

/// Reads the block and transaction environment (not block.number, which differs by design:
/// the reference mines block N+1 while the simulation runs on block N's environment).
contract Env {
    function read() external view returns (uint256 chainId, uint256 timestamp, uint256 baseFee, uint256 gasPrice,
        address coinbase, uint256 gasLimit, uint256 selfBalance, uint256 senderBalance, address origin)
    {
        return (block.chainid, block.timestamp, block.basefee, tx.gasprice, block.coinbase, block.gaslimit,
            address(this).balance, msg.sender.balance, tx.origin);
    }
    function blobs() external view returns (uint256 blobBaseFee, bytes32 blobHash0) {
        return (block.blobbasefee, blobhash(0));
    }
    /// MCOPY (Cancun) through abi.encodePacked of memory bytes.
    function copy(bytes calldata data) external pure returns (bytes memory out) {
        bytes memory m = data;
        out = new bytes(m.length);
        assembly { mcopy(add(out, 32), add(m, 32), mload(m)) }
    }
}
`,
};

export interface Artifact {
  abi: InterfaceAbi;
  bytecode: string;
  deployedBytecode: string;
  iface: Interface;
}

/** Compiles SOURCES (optimizer on, EVM version prague: the code runs the same on osaka). */
export function compile(): Record<string, Artifact> {
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(SOURCES).map(([name, content]) => [name, { content }])),
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'prague',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };
  const output = compileSolidityCached(input);
  const out: Record<string, Artifact> = {};
  for (const file of Object.keys(SOURCES)) {
    for (const [name, c] of Object.entries<any>(output.contracts[file])) {
      out[name] = {
        abi: c.abi,
        bytecode: '0x' + c.evm.bytecode.object,
        deployedBytecode: '0x' + c.evm.deployedBytecode.object,
        iface: new Interface(c.abi),
      };
    }
  }
  for (const [name, file] of [
    ['UniswapV2Factory', '@uniswap/v2-core/build/UniswapV2Factory.json'],
    ['UniswapV2Pair', '@uniswap/v2-core/build/UniswapV2Pair.json'],
    ['UniswapV2Router02', '@uniswap/v2-periphery/build/UniswapV2Router02.json'],
    ['WETH9', '@uniswap/v2-periphery/build/WETH9.json'],
  ] as const) {
    const j = JSON.parse(readFileSync(require.resolve(file), 'utf8'));
    const hex = (s: string | undefined) => (s ? (s.startsWith('0x') ? s : '0x' + s) : '0x');
    out[name] = {
      abi: j.abi,
      bytecode: hex(j.bytecode ?? j.evm?.bytecode?.object),
      deployedBytecode: hex(j.evm?.deployedBytecode?.object),
      iface: new Interface(j.abi),
    };
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Deployment

export const E18 = 10n ** 18n;
/** Liquidity put into the pools at setup (token units of 18 decimals; ETH in wei). */
export const POOLS = {
  aWeth: { token: 1_000_000n * E18, eth: 1_000n * E18 },
  bWeth: { token: 500_000n * E18, eth: 500n * E18 },
  aB: { a: 1_000_000n * E18, b: 2_000_000n * E18 },
  feeWeth: { token: 1_000_000n * E18, eth: 1_000n * E18 },
};
export const FEE_BPS = 500n;
/** ERC20 (OpenZeppelin 5) storage: _balances at slot 0, _allowances at slot 1, _totalSupply at 2. */
export const ERC20_BALANCES_SLOT = 0n;
export const COUNTER_COUNT_SLOT = 0n;
/** The dev accounts that trade: 1..5 approved the router for every token at setup, 6..10 did not. */
export const APPROVED_TRADERS = [1, 2, 3, 4, 5];
export const UNAPPROVED_TRADERS = [6, 7, 8, 9, 10];
export const TRADER_TOKENS = 100_000n * E18;
export const TRADER_WETH = 20n * E18;

export interface Deployment {
  artifacts: Record<string, Artifact>;
  /** The node's 20 dev accounts (lowercase). accounts[0] deployed everything. */
  accounts: string[];
  /** feeTo of the fee token: accounts[19]. */
  feeTo: string;
  weth: string;
  factory: string;
  router: string;
  tokenA: string;
  tokenB: string;
  tokenC: string;
  feeToken: string;
  pairs: { aWeth: string; bWeth: string; aB: string; feeWeth: string };
  reverter: string;
  sink: string;
  rejecter: string;
  forwarders: string[];
  caller: string;
  callCoder: string;
  slotWriter: string;
  childFactory: string;
  bomb: string;
  store: string;
  counter: string;
  env: string;
  transient: string;
  /** Balances given at setup. */
  funded: { forwarder0: bigint; callCoder: bigint; childFactory: bigint; bomb: bigint };
  /** Head block after setup (the block every case runs on) and its timestamp. */
  block: number;
  timestamp: number;
  /** Nonces of the dev accounts at `block`. */
  nonces: Record<string, number>;
}

export function erc20BalanceSlot(holder: string): string {
  return keccak256(AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [holder, ERC20_BALANCES_SLOT]));
}

export function word(v: bigint): string {
  return zeroPadValue(toBeHex(v), 32);
}

export function pairAddress(factory: string, a: string, b: string): string {
  const [t0, t1] = BigInt(a) < BigInt(b) ? [a, b] : [b, a];
  const salt = solidityPackedKeccak256(['address', 'address'], [t0, t1]);
  const initHash = '0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f';
  return ('0x' + keccak256('0x' + ['ff', factory.slice(2), salt.slice(2), initHash.slice(2)].join('')).slice(26)).toLowerCase();
}

/** Sends setup transactions from unlocked dev accounts, one block each (automine). */
class Deployer {
  constructor(private readonly rpc: JsonRpc) {}

  async send(tx: { from: string; to?: string; data?: string; value?: bigint }): Promise<any> {
    const hash = await this.rpc.call<string>('eth_sendTransaction', [
      {
        from: tx.from,
        ...(tx.to ? { to: tx.to } : {}),
        data: tx.data ?? '0x',
        value: toBeHex(tx.value ?? 0n),
        gas: toBeHex(15_000_000),
        gasPrice: '0x0',
      },
    ]);
    const receipt = await this.rpc.call<any>('eth_getTransactionReceipt', [hash]);
    if (receipt.status !== '0x1') throw new Error(`setup transaction failed: ${JSON.stringify(tx).slice(0, 300)}`);
    return receipt;
  }

  async deploy(from: string, art: Artifact, args: unknown[] = [], value = 0n): Promise<string> {
    const data = art.bytecode + art.iface.encodeDeploy(args).slice(2);
    const receipt = await this.send({ from, data, value });
    return (receipt.contractAddress as string).toLowerCase();
  }

  async call(from: string, to: string, art: Artifact, fn: string, args: unknown[], value = 0n): Promise<any> {
    return this.send({ from, to, data: art.iface.encodeFunctionData(fn, args), value });
  }
}

/** Deploys everything with normal mined transactions and returns the addresses. */
export async function deploy(rpc: JsonRpc, artifacts: Record<string, Artifact>): Promise<Deployment> {
  const d = new Deployer(rpc);
  const accounts = (await rpc.call<string[]>('eth_accounts')).map((a) => a.toLowerCase());
  const [owner] = accounts;
  const feeTo = accounts[19];
  const A = artifacts;

  const weth = await d.deploy(owner, A.WETH9);
  const factory = await d.deploy(owner, A.UniswapV2Factory, [owner]);
  const router = await d.deploy(owner, A.UniswapV2Router02, [factory, weth]);
  const supply = 1_000_000_000n * E18;
  const tokenA = await d.deploy(owner, A.TestToken, ['Token A', 'TKA', supply]);
  const tokenB = await d.deploy(owner, A.TestToken, ['Token B', 'TKB', supply]);
  const tokenC = await d.deploy(owner, A.TestToken, ['Token C', 'TKC', supply]);
  const feeToken = await d.deploy(owner, A.FeeToken, [supply, feeTo, FEE_BPS]);

  for (const t of [tokenA, tokenB, tokenC, feeToken]) await d.call(owner, t, A.TestToken, 'approve', [router, MaxUint256]);
  const deadline = 2n ** 40n;
  await d.call(owner, router, A.UniswapV2Router02, 'addLiquidityETH', [tokenA, POOLS.aWeth.token, 0, 0, owner, deadline], POOLS.aWeth.eth);
  await d.call(owner, router, A.UniswapV2Router02, 'addLiquidityETH', [tokenB, POOLS.bWeth.token, 0, 0, owner, deadline], POOLS.bWeth.eth);
  await d.call(owner, router, A.UniswapV2Router02, 'addLiquidity', [tokenA, tokenB, POOLS.aB.a, POOLS.aB.b, 0, 0, owner, deadline]);
  await d.call(owner, router, A.UniswapV2Router02, 'addLiquidityETH', [feeToken, POOLS.feeWeth.token, 0, 0, owner, deadline], POOLS.feeWeth.eth);
  const pairs = {
    aWeth: pairAddress(factory, tokenA, weth),
    bWeth: pairAddress(factory, tokenB, weth),
    aB: pairAddress(factory, tokenA, tokenB),
    feeWeth: pairAddress(factory, feeToken, weth),
  };
  for (const p of Object.values(pairs)) await d.call(owner, p, A.UniswapV2Pair, 'approve', [router, MaxUint256]);

  for (const i of [...APPROVED_TRADERS, ...UNAPPROVED_TRADERS]) {
    const trader = accounts[i];
    for (const t of [tokenA, tokenB, tokenC, feeToken]) await d.call(owner, t, A.TestToken, 'transfer', [trader, TRADER_TOKENS]);
    await d.call(trader, weth, A.WETH9, 'deposit', [], TRADER_WETH);
    if (APPROVED_TRADERS.includes(i)) {
      for (const t of [tokenA, tokenB, tokenC, feeToken, weth]) await d.call(trader, t, A.TestToken, 'approve', [router, MaxUint256]);
    }
  }

  const funded = { forwarder0: 10n * E18, callCoder: 5n * E18, childFactory: 5n * E18, bomb: 1n * E18 };
  const reverter = await d.deploy(owner, A.Reverter);
  const sink = await d.deploy(owner, A.Sink);
  const rejecter = await d.deploy(owner, A.Rejecter);
  const forwarders: string[] = [];
  for (let i = 0; i < 3; i++) forwarders.push(await d.deploy(owner, A.Forwarder));
  await d.send({ from: owner, to: forwarders[0], value: funded.forwarder0 });
  const caller = await d.deploy(owner, A.Caller);
  const callCoder = await d.deploy(owner, A.CallCoder);
  await d.send({ from: owner, to: callCoder, value: funded.callCoder });
  const slotWriter = await d.deploy(owner, A.SlotWriter);
  const childFactory = await d.deploy(owner, A.Factory);
  await d.send({ from: owner, to: childFactory, value: funded.childFactory });
  const bomb = await d.deploy(owner, A.Bomb, [], funded.bomb);
  const store = await d.deploy(owner, A.Store);
  const counter = await d.deploy(owner, A.Counter);
  await d.call(owner, counter, A.Counter, 'incrementBy', [5]);
  const env = await d.deploy(owner, A.Env);
  const transient = await d.deploy(owner, A.Transient);

  const head = await rpc.call<any>('eth_getBlockByNumber', ['latest', false]);
  const block = Number(head.number);
  if (BigInt(head.baseFeePerGas ?? 0) !== 0n) throw new Error(`base fee after setup is ${head.baseFeePerGas}, expected 0`);
  const nonces: Record<string, number> = {};
  for (const a of accounts) nonces[a] = Number(await rpc.call<string>('eth_getTransactionCount', [a, toBeHex(block)]));

  return {
    artifacts,
    accounts,
    feeTo,
    weth,
    factory,
    router,
    tokenA,
    tokenB,
    tokenC,
    feeToken,
    pairs,
    reverter,
    sink,
    rejecter,
    forwarders,
    caller,
    callCoder,
    slotWriter,
    childFactory,
    bomb,
    store,
    counter,
    env,
    transient,
    funded,
    block,
    timestamp: Number(head.timestamp),
    nonces,
  };
}
