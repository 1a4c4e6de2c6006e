import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { AbiCoder, getCreate2Address, HDNodeWallet, Interface, keccak256, MaxUint256, solidityPacked, type InterfaceAbi } from 'ethers';
import type { HardhatNode } from './hardhat.js';
import { compileSolidityCached } from './solc.js';

/** The monorepo root (this file is packages/test-support/src/local-dex.ts). */
const ROOT = join(import.meta.dirname, '..', '..', '..');
const require = createRequire(join(ROOT, 'package.json'));

/** Where a Uniswap V2 factory puts (or will put) the pair of two tokens: CREATE2 of the pair's creation code, salted with the sorted tokens. */
export function uniswapV2PairAddress(factory: string, tokenA: string, tokenB: string, pairBytecode: string): string {
  const [token0, token1] = BigInt(tokenA) < BigInt(tokenB) ? [tokenA, tokenB] : [tokenB, tokenA];
  return getCreate2Address(factory, keccak256(solidityPacked(['address', 'address'], [token0, token1])), keccak256(pairBytecode));
}

/** Hardhat's development accounts (the well-known "test … junk" mnemonic). */
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';
export function devWallet(index: number): HDNodeWallet {
  return HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, `m/44'/60'/0'/0/${index}`);
}

/**
 * Launch test tokens: a plain ERC20, one that takes a tax on every transfer between two
 * holders (to `taxTo`), and a honeypot that anyone can buy but only contracts (the pair) and the
 * owner can send: a wallet's sell reverts.
 */
export const LAUNCH_TOKENS_SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

contract PlainToken is ERC20 {
    constructor(uint256 supply) ERC20("Plain", "PLN") { _mint(msg.sender, supply); }
}

contract TaxToken is ERC20 {
    address public immutable owner;
    address public immutable taxTo;
    uint256 public immutable taxBps;
    constructor(uint256 supply, address taxTo_, uint256 taxBps_) ERC20("Taxed", "TAX") {
        owner = msg.sender; taxTo = taxTo_; taxBps = taxBps_;
        _mint(msg.sender, supply);
    }
    function _update(address from, address to, uint256 value) internal override {
        if (from == address(0) || to == address(0) || from == owner) return super._update(from, to, value);
        uint256 tax = (value * taxBps) / 10_000;
        super._update(from, taxTo, tax);
        super._update(from, to, value - tax);
    }
}

contract HoneypotToken is ERC20 {
    address public immutable owner;
    constructor(uint256 supply) ERC20("Honey", "HNY") { owner = msg.sender; _mint(msg.sender, supply); }
    function _update(address from, address to, uint256 value) internal override {
        require(from == address(0) || from == owner || from.code.length > 0, "HoneypotToken: sells are closed");
        super._update(from, to, value);
    }
}

interface IRouterETH {
    function addLiquidityETH(address token, uint amountTokenDesired, uint amountTokenMin, uint amountETHMin, address to, uint deadline)
        external payable returns (uint amountToken, uint amountETH, uint liquidity);
}

/** The common launch pattern: the token holds its liquidity and adds it itself in \`openTrading()\`. */
contract TradingToken is ERC20 {
    address public immutable owner;
    address public immutable router;
    bool public tradingOpen;
    constructor(uint256 supply, address router_) ERC20("Trading", "TRD") { owner = msg.sender; router = router_; _mint(address(this), supply); }
    receive() external payable {}
    function openTrading() external {
        require(msg.sender == owner && !tradingOpen, "TradingToken: not allowed");
        tradingOpen = true;
        _approve(address(this), router, type(uint256).max);
        IRouterETH(router).addLiquidityETH{value: address(this).balance}(address(this), balanceOf(address(this)), 0, 0, owner, block.timestamp);
    }
}

/**
 * A token whose owner can hurt holders with one call of a deliberately plain name:
 * \`set(0, _, bps)\` sets a tax on every transfer not from or to the owner, \`set(1, who, _)\`
 * blocks \`who\`'s transfers, \`set(2, _, 0)\` closes trading (only the owner transfers).
 */
contract SwitchToken is ERC20 {
    address public immutable owner;
    uint256 public feeBps;
    bool public closed;
    mapping(address => bool) public blocked;
    constructor(uint256 supply) ERC20("Switch", "SWT") { owner = msg.sender; _mint(msg.sender, supply); }
    function set(uint8 what, address who, uint256 value) external {
        require(msg.sender == owner, "SwitchToken: not the owner");
        if (what == 0) feeBps = value;
        else if (what == 1) blocked[who] = true;
        else closed = value == 0;
    }
    function _update(address from, address to, uint256 value) internal override {
        if (from == address(0) || to == address(0) || from == owner || to == owner) return super._update(from, to, value);
        require(!closed, "SwitchToken: closed");
        require(!blocked[from], "SwitchToken: blocked");
        uint256 fee = (value * feeBps) / 10_000;
        if (fee > 0) super._update(from, owner, fee);
        super._update(from, to, value - fee);
    }
}

contract RevertingToken is ERC20 {
    address public immutable owner;
    constructor(uint256 supply) ERC20("Broken", "BRK") { owner = msg.sender; _mint(msg.sender, supply); }
    function _update(address from, address to, uint256 value) internal override {
        require(from == address(0) || from == owner || to == owner, "RevertingToken: transfers are paused");
        super._update(from, to, value);
    }
}
`;

export interface Artifact {
  abi: InterfaceAbi;
  bytecode: string;
  iface: Interface;
}

let compiled: Record<string, Artifact> | null = null;

/** The launch tokens (compiled with the installed solc, once per install: compileSolidityCached) and the Uniswap V2 artefacts from npm. */
export function launchArtifacts(): Record<string, Artifact> {
  if (compiled) return compiled;
  const output = compileSolidityCached({
    language: 'Solidity',
    sources: { 'LaunchTokens.sol': { content: LAUNCH_TOKENS_SOURCE } },
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  });
  const out: Record<string, Artifact> = {};
  for (const [name, c] of Object.entries<{ abi: InterfaceAbi; evm: { bytecode: { object: string } } }>(output.contracts['LaunchTokens.sol'])) {
    out[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}`, iface: new Interface(c.abi) };
  }
  for (const [name, file] of [
    ['UniswapV2Factory', '@uniswap/v2-core/build/UniswapV2Factory.json'],
    ['UniswapV2Pair', '@uniswap/v2-core/build/UniswapV2Pair.json'],
    ['UniswapV2Router02', '@uniswap/v2-periphery/build/UniswapV2Router02.json'],
    ['WETH9', '@uniswap/v2-periphery/build/WETH9.json'],
  ] as const) {
    const j = JSON.parse(readFileSync(require.resolve(file), 'utf8')) as { abi: InterfaceAbi; bytecode: string };
    out[name] = { abi: j.abi, bytecode: j.bytecode.startsWith('0x') ? j.bytecode : `0x${j.bytecode}`, iface: new Interface(j.abi) };
  }
  compiled = out;
  return out;
}

export interface Receipt {
  status: string;
  blockNumber: string;
  contractAddress: string | null;
  transactionHash: string;
  gasUsed: string;
}

/**
 * WETH, a Uniswap V2 factory and router on a local hardhat node, deployed by `owner` (an
 * unlocked dev account), and helpers to deploy tokens and launch them.
 */
export class LocalDex {
  readonly a = launchArtifacts();

  private constructor(
    readonly node: HardhatNode,
    readonly owner: string,
    readonly weth: string,
    readonly factory: string,
    readonly router: string,
  ) {}

  static async deploy(node: HardhatNode, owner?: string): Promise<LocalDex> {
    const from = owner ?? (await node.rpc.call<string[]>('eth_accounts'))[0]!;
    const a = launchArtifacts();
    const coder = AbiCoder.defaultAbiCoder();
    const deploy = async (bytecode: string, args = '0x') => (await mined(node, from, null, bytecode + args.slice(2))).contractAddress!.toLowerCase();
    const weth = await deploy(a.WETH9!.bytecode);
    const factory = await deploy(a.UniswapV2Factory!.bytecode, coder.encode(['address'], [from]));
    const router = await deploy(a.UniswapV2Router02!.bytecode, coder.encode(['address', 'address'], [factory, weth]));
    return new LocalDex(node, from.toLowerCase(), weth, factory, router);
  }

  /** Deploys one of the launch tokens (constructor arguments ABI-encoded from `args`). */
  async deployToken(name: 'PlainToken' | 'TaxToken' | 'HoneypotToken' | 'RevertingToken' | 'TradingToken' | 'SwitchToken', args: unknown[]): Promise<string> {
    const artifact = this.a[name]!;
    const encoded = artifact.iface.encodeDeploy(args);
    return (await mined(this.node, this.owner, null, artifact.bytecode + encoded.slice(2))).contractAddress!.toLowerCase();
  }

  /** Adds the first liquidity of `token` with `native` wei (the launch); returns the block it happened in. */
  async launch(token: string, tokenAmount: bigint, native: bigint): Promise<bigint> {
    const erc20 = this.a.PlainToken!.iface;
    await mined(this.node, this.owner, token, erc20.encodeFunctionData('approve', [this.router, MaxUint256]));
    const deadline = Math.floor(Date.now() / 1000) + 3600;
    const data = this.a.UniswapV2Router02!.iface.encodeFunctionData('addLiquidityETH', [token, tokenAmount, 0, 0, this.owner, deadline]);
    return BigInt((await mined(this.node, this.owner, this.router, data, native)).blockNumber);
  }

  /** The address `token`'s pair with WETH has, or will have once made (lowercase). */
  pairAddress(token: string): string {
    return uniswapV2PairAddress(this.factory, token, this.weth, this.a.UniswapV2Pair!.bytecode).toLowerCase();
  }

  async pairOf(token: string): Promise<string> {
    const iface = this.a.UniswapV2Factory!.iface;
    const result = await this.node.rpc.call<string>('eth_call', [
      { to: this.factory, data: iface.encodeFunctionData('getPair', [token, this.weth]) },
      'latest',
    ]);
    return (iface.decodeFunctionResult('getPair', result)[0] as string).toLowerCase();
  }

  async balanceOf(token: string, holder: string): Promise<bigint> {
    const iface = this.a.PlainToken!.iface;
    return BigInt(await this.node.rpc.call<string>('eth_call', [{ to: token, data: iface.encodeFunctionData('balanceOf', [holder]) }, 'latest']));
  }
}

/**
 * Sends a transaction from an unlocked account and mines it (whether or not the node automines),
 * then returns its receipt; throws if it reverted.
 */
export async function mined(node: HardhatNode, from: string, to: string | null, data: string, value = 0n): Promise<Receipt> {
  const hash = await node.rpc.call<string>('eth_sendTransaction', [{ from, ...(to ? { to } : {}), data, value: `0x${value.toString(16)}`, gas: '0x7a1200' }]);
  let receipt = await node.rpc.call<Receipt | null>('eth_getTransactionReceipt', [hash]);
  if (!receipt) {
    await node.rpc.call('evm_mine', []);
    receipt = await node.rpc.call<Receipt | null>('eth_getTransactionReceipt', [hash]);
  }
  if (!receipt || receipt.status !== '0x1') throw new Error(`transaction ${hash} ${receipt ? 'reverted' : 'was not mined'}`);
  return receipt;
}
