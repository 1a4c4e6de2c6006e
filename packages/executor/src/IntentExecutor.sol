// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";

/// @notice The wrapped native token (WETH9 and its forks).
interface IWrappedNative is IERC20 {
    function withdraw(uint256 amount) external;
}

/// @notice The parts of a Uniswap-V2-style router, factory and pair this contract uses.
interface IV2Router {
    function factory() external view returns (address);

    function swapExactTokensForTokensSupportingFeeOnTransferTokens(
        uint256 amountIn,
        uint256 amountOutMin,
        address[] calldata path,
        address to,
        uint256 deadline
    ) external;
}

interface IV2Factory {
    function getPair(address tokenA, address tokenB) external view returns (address);
}

interface IV2Pair {
    function getReserves() external view returns (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast);

    function price0CumulativeLast() external view returns (uint256);

    function price1CumulativeLast() external view returns (uint256);
}

/**
 * @title IntentExecutor
 * @notice Executes a wallet's pre-signed buy (an EIP-712 `BuyIntent`) without ever taking custody:
 * in one transaction, sent by anyone (the service's relayer), it checks the signature and every
 * term of the intent, takes exactly `amount + bribe` wrapped native from the wallet (which approved
 * this contract), swaps `amount - fee` for the token through the router with the tokens going
 * straight to the wallet, checks what the wallet really received against `minOut`, then pays the
 * fee to `feeRecipient` and the bribe to the block's builder, both in native coin. Any failing
 * step reverts the whole call: the fee and the bribe are paid only when the buy happens, and this
 * contract holds nothing of the wallet's once the call returns.
 *
 * Each intent is usable once: its `nonce` is marked used in the wallet's nonce bitmap before any
 * external call. The wallet revokes an intent on-chain with {cancel} or many at once with
 * {invalidateNonces}.
 *
 * Merkle's own 5-field `BuyIntent{token, amount, bribe, expiry, minIn}` (no wallet, no nonce, no
 * fee) runs through {executeMerkle}: each signed struct is spent once per wallet (its struct hash
 * is marked used), and the wallet revokes one with {cancelMerkle}.
 *
 * One intent per call, no batch: each buy is its own transaction, so one failing buy cannot take
 * others down, and builders order them by what each pays.
 *
 * Deployed once per chain, with the chain's Uniswap-V2-style router and wrapped native token.
 * There is no owner, no admin function, no upgrade path and no way to move funds other than
 * {execute}. It needs EIP-1153 (transient storage, for the reentrancy guard).
 */
contract IntentExecutor is EIP712, ReentrancyGuardTransient {
    using SafeERC20 for IERC20;

    /**
     * @notice What the wallet signs. Merkle's `BuyIntent{token, amount, bribe, expiry, minIn}` plus
     * what makes every on-chain check binding. The chain and this executor are in the EIP-712
     * domain `{name: "OPL", version: "1", chainId, verifyingContract: address(this)}`.
     * @param wallet        the signer: pays `amount + bribe` in wrapped native and receives the tokens
     * @param token         the token bought (through its pair with the wrapped native token)
     * @param amount        wei of wrapped native spent on the buy, the fee included
     * @param bribe         wei paid (as native) to `block.coinbase`
     * @param expiry        unix seconds: no execution in a block with a later timestamp
     * @param minIn         the least wei that may go into the swap (`amount - fee`)
     * @param minOut        the least token units the wallet must receive (after any token tax)
     * @param feeBps        fee on `amount`, in basis points (at most 10000), rounded down
     * @param feeRecipient  receives the fee (as native); required when the fee is not 0
     * @param firstOrFail   buy only in the block in which the pool got its first liquidity
     * @param nonce         one-use number of the wallet (any 256-bit value; see {nonceBitmap})
     */
    struct BuyIntent {
        address wallet;
        address token;
        uint256 amount;
        uint256 bribe;
        uint256 expiry;
        uint256 minIn;
        uint256 minOut;
        uint16 feeBps;
        address feeRecipient;
        bool firstOrFail;
        uint256 nonce;
    }

    /**
     * @notice Merkle's `BuyIntent`, field for field as docs.merkle.io's `POST /v1/wallet/intent`
     * defines it (EIP-712 type name `BuyIntent`, same domain). It names neither the wallet (the
     * signer is the wallet) nor a nonce: each signed struct is usable once per wallet (its struct
     * hash is marked used, see {merkleIntentUsed}). It binds no fee, `minOut` or firstOrFail.
     * @param token   the token bought (through its pair with the wrapped native token)
     * @param amount  wei of wrapped native swapped (no fee is taken)
     * @param bribe   wei paid (as native) to `block.coinbase`
     * @param expiry  unix seconds: no execution in a block with a later timestamp
     * @param minIn   the least wei that may go into the swap
     */
    struct MerkleBuyIntent {
        address token;
        uint256 amount;
        uint256 bribe;
        uint256 expiry;
        uint256 minIn;
    }

    /// @notice EIP-712 type hash of {MerkleBuyIntent}: Merkle's type string, type name `BuyIntent`.
    bytes32 public constant MERKLE_BUY_INTENT_TYPEHASH =
        keccak256("BuyIntent(address token,uint256 amount,uint256 bribe,uint256 expiry,uint256 minIn)");

    /// @notice EIP-712 type hash of {BuyIntent}.
    bytes32 public constant BUY_INTENT_TYPEHASH = keccak256(
        "BuyIntent(address wallet,address token,uint256 amount,uint256 bribe,uint256 expiry,uint256 minIn,uint256 minOut,uint16 feeBps,address feeRecipient,bool firstOrFail,uint256 nonce)"
    );

    uint256 private constant BPS = 10_000;

    /// @notice The Uniswap-V2-style router every buy goes through.
    address public immutable router;
    /// @notice The router's factory (where the pair is looked up).
    address public immutable factory;
    /// @notice The wrapped native token the wallet pays with.
    address public immutable wrappedNative;

    /**
     * @notice Used nonces, 256 per word: nonce `n` is bit `n & 255` of word `n >> 8` of the wallet.
     * Unordered: any unused nonce is valid, in any order (as Permit2's signature transfers).
     */
    mapping(address wallet => mapping(uint256 wordPos => uint256 bits)) public nonceBitmap;

    /// @notice Merkle intents executed or cancelled: per wallet, the struct hashes spent (see {merkleStructHash}).
    mapping(address wallet => mapping(bytes32 structHash => bool)) public merkleIntentUsed;

    /// @notice A buy happened. `amountOut` is what the wallet's token balance grew by.
    event IntentExecuted(
        address indexed wallet,
        bytes32 indexed digest,
        address indexed token,
        uint256 nonce,
        uint256 amountIn,
        uint256 amountOut,
        uint256 fee,
        uint256 bribe
    );
    /// @notice A Merkle intent was bought. `amountOut` is what the wallet's token balance grew by.
    event MerkleIntentExecuted(
        address indexed wallet,
        bytes32 indexed digest,
        address indexed token,
        bytes32 structHash,
        uint256 amountIn,
        uint256 amountOut,
        uint256 bribe
    );
    /// @notice The wallet revoked one Merkle intent.
    event MerkleIntentCancelled(address indexed wallet, bytes32 indexed digest, bytes32 structHash);
    /// @notice The wallet revoked one intent.
    event IntentCancelled(address indexed wallet, bytes32 indexed digest, uint256 nonce);
    /// @notice The wallet revoked every nonce whose bit is set in `mask`, in word `wordPos`.
    event NoncesInvalidated(address indexed wallet, uint256 indexed wordPos, uint256 mask);

    error ZeroAddress();
    /// @notice The block's timestamp is past the intent's expiry.
    error Expired(uint256 expiry, uint256 timestamp);
    error FeeBpsTooHigh(uint256 feeBps);
    error FeeRecipientMissing();
    /// @notice `amount - fee` is 0: nothing would be bought.
    error NothingToBuy();
    /// @notice `amount - fee` is below the intent's `minIn`.
    error MinInNotMet(uint256 amountIn, uint256 minIn);
    /// @notice The signature is neither the wallet's ECDSA signature nor accepted by it (ERC-1271).
    error InvalidSignature();
    /// @notice The nonce was used by an execution, a cancel or {invalidateNonces}.
    error NonceAlreadyUsed(address wallet, uint256 nonce);
    /// @notice This wallet's Merkle intent (this struct hash) was executed or cancelled already.
    error IntentAlreadyUsed(address wallet, bytes32 structHash);
    /// @notice Only the intent's wallet may cancel it.
    error NotWallet(address caller, address wallet);
    /// @notice The factory has no pair of the token with the wrapped native token.
    error NoPool(address token);
    /// @notice The pair exists but holds no liquidity yet.
    error NoLiquidity(address pair);
    /// @notice firstOrFail, and this is not the block in which the pool got its first liquidity.
    error NotLaunchBlock(address pair);
    /// @notice The wallet received fewer tokens than `minOut` (measured, after any token tax).
    error InsufficientOutput(uint256 amountOut, uint256 minOut);
    error NativeTransferFailed(address to, uint256 amount);
    /// @notice Native coin is accepted only from the wrapped native token (when unwrapping).
    error NativeNotAccepted();

    /**
     * @param router_ the chain's Uniswap-V2-style router (its `factory()` is read once, here)
     * @param wrappedNative_ the chain's wrapped native token (the router's `WETH()`)
     */
    constructor(address router_, address wrappedNative_) EIP712("OPL", "1") {
        if (router_ == address(0) || wrappedNative_ == address(0)) revert ZeroAddress();
        router = router_;
        wrappedNative = wrappedNative_;
        factory = IV2Router(router_).factory();
        // The router pulls the swap's input from this contract. This contract holds wrapped
        // native only inside {execute}, and only the router (immutable) can use the allowance.
        IERC20(wrappedNative_).forceApprove(router_, type(uint256).max);
    }

    /// @dev Unwrapping sends native coin here; nothing else may.
    receive() external payable {
        if (msg.sender != wrappedNative) revert NativeNotAccepted();
    }

    /**
     * @notice Executes `intent`, signed by `intent.wallet` (an EOA's 65-byte ECDSA signature, or
     * whatever the wallet contract accepts through ERC-1271). Callable by anyone: the outcome
     * for the wallet is the one it signed, whoever sends it. Reverts, paying nothing, unless every
     * check passes: expiry, fee terms, `minIn`, signature, unused nonce, a pool with liquidity
     * (in its launch block with firstOrFail), the `amount + bribe` transfer from the wallet, the
     * swap, and `minOut` on what the wallet really received.
     * @return amountOut the token units the wallet received
     */
    function execute(BuyIntent calldata intent, bytes calldata signature) external nonReentrant returns (uint256 amountOut) {
        // Checks: the terms, the signature, the pool.
        if (block.timestamp > intent.expiry) revert Expired(intent.expiry, block.timestamp);
        (uint256 fee, uint256 amountIn) = _split(intent);
        bytes32 digest = hashBuyIntent(intent);
        if (!_isValidSignature(intent.wallet, digest, signature)) revert InvalidSignature();
        _checkPool(intent.token, intent.firstOrFail);

        // Effects: the intent is spent before any call that can change state.
        _useNonce(intent.wallet, intent.nonce);

        // Interactions.
        amountOut = _buy(intent, amountIn);
        _pay(intent, fee);

        emit IntentExecuted(intent.wallet, digest, intent.token, intent.nonce, amountIn, amountOut, fee, intent.bribe);
    }

    /**
     * @notice Executes Merkle's 5-field `intent`, signed by `wallet` (ECDSA, or ERC-1271 for a
     * contract wallet). Callable by anyone. Reverts, paying nothing, unless: not past `expiry`;
     * `amount` above 0 and at least `minIn`; the signature is the wallet's; this wallet has not
     * spent this struct hash (marked spent here, before any external call); the pool holds
     * liquidity; `amount + bribe` comes from the wallet; and the wallet receives at least
     * `amountOutMin`. `amountOutMin` is the sender's (the relayer's) slippage guard, not signed:
     * it can only make the buy stricter for the wallet.
     * @return amountOut the token units the wallet received
     */
    function executeMerkle(MerkleBuyIntent calldata intent, address wallet, uint256 amountOutMin, bytes calldata signature)
        external
        nonReentrant
        returns (uint256 amountOut)
    {
        if (block.timestamp > intent.expiry) revert Expired(intent.expiry, block.timestamp);
        if (intent.amount == 0) revert NothingToBuy();
        if (intent.amount < intent.minIn) revert MinInNotMet(intent.amount, intent.minIn);
        bytes32 structHash = merkleStructHash(intent);
        bytes32 digest = _hashTypedDataV4(structHash);
        if (!_isValidSignature(wallet, digest, signature)) revert InvalidSignature();
        _checkPool(intent.token, false);

        // Effects: spent before any call that can change state.
        _useMerkleIntent(wallet, structHash);

        // Interactions.
        amountOut = _swapFor(wallet, intent.token, intent.amount, intent.amount + intent.bribe, amountOutMin);
        if (intent.bribe > 0) {
            IWrappedNative(wrappedNative).withdraw(intent.bribe);
            _sendNative(block.coinbase, intent.bribe);
        }

        emit MerkleIntentExecuted(wallet, digest, intent.token, structHash, intent.amount, amountOut, intent.bribe);
    }

    /// @notice Revokes the caller's Merkle `intent`: it can no longer execute for the caller.
    function cancelMerkle(MerkleBuyIntent calldata intent) external {
        bytes32 structHash = merkleStructHash(intent);
        _useMerkleIntent(msg.sender, structHash);
        emit MerkleIntentCancelled(msg.sender, _hashTypedDataV4(structHash), structHash);
    }

    /// @notice The EIP-712 struct hash of Merkle's `intent` (the key of {merkleIntentUsed}).
    function merkleStructHash(MerkleBuyIntent calldata intent) public pure returns (bytes32) {
        return keccak256(abi.encode(MERKLE_BUY_INTENT_TYPEHASH, intent));
    }

    /// @notice The EIP-712 digest the wallet signs for Merkle's `intent` (this chain, this executor).
    function hashMerkleBuyIntent(MerkleBuyIntent calldata intent) external view returns (bytes32) {
        return _hashTypedDataV4(merkleStructHash(intent));
    }

    /**
     * @notice Revokes `intent` on-chain: its nonce becomes used, so it (and any other intent of
     * the wallet with the same nonce) can no longer execute. Only the intent's wallet may call it.
     */
    function cancel(BuyIntent calldata intent) external {
        if (msg.sender != intent.wallet) revert NotWallet(msg.sender, intent.wallet);
        _useNonce(msg.sender, intent.nonce);
        emit IntentCancelled(msg.sender, hashBuyIntent(intent), intent.nonce);
    }

    /**
     * @notice Revokes many of the caller's nonces at once: every nonce `wordPos * 256 + i` for
     * which bit `i` of `mask` is set. Already used nonces stay used.
     */
    function invalidateNonces(uint256 wordPos, uint256 mask) external {
        nonceBitmap[msg.sender][wordPos] |= mask;
        emit NoncesInvalidated(msg.sender, wordPos, mask);
    }

    /// @notice The EIP-712 digest the wallet signs for `intent` (this chain, this executor).
    function hashBuyIntent(BuyIntent calldata intent) public view returns (bytes32) {
        // Every field is a static type, so abi.encode(struct) is the fields' words in order.
        return _hashTypedDataV4(keccak256(abi.encode(BUY_INTENT_TYPEHASH, intent)));
    }

    /// @notice Whether `nonce` of `wallet` was executed, cancelled or invalidated.
    function isNonceUsed(address wallet, uint256 nonce) external view returns (bool) {
        return nonceBitmap[wallet][nonce >> 8] & (1 << (nonce & 0xff)) != 0;
    }

    /// @notice The EIP-712 domain separator (see also ERC-5267 `eip712Domain()`).
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    // ------------------------------------------------------------------ internals

    /// @dev The fee and what goes into the swap; checks the fee terms and `minIn`.
    function _split(BuyIntent calldata intent) private pure returns (uint256 fee, uint256 amountIn) {
        if (intent.feeBps > BPS) revert FeeBpsTooHigh(intent.feeBps);
        fee = (intent.amount * intent.feeBps) / BPS;
        if (fee > 0 && intent.feeRecipient == address(0)) revert FeeRecipientMissing();
        amountIn = intent.amount - fee;
        if (amountIn == 0) revert NothingToBuy();
        if (amountIn < intent.minIn) revert MinInNotMet(amountIn, intent.minIn);
    }

    /**
     * @dev The wallet's own ECDSA signature first (an EOA, or an EIP-7702 account signing with its
     * key), then, for a wallet with code, ERC-1271. OpenZeppelin's ECDSA rejects malleable (high-s)
     * signatures; replay protection does not depend on it (the nonce does).
     */
    function _isValidSignature(address wallet, bytes32 digest, bytes calldata signature) private view returns (bool) {
        (address recovered, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(digest, signature);
        if (err == ECDSA.RecoverError.NoError && recovered == wallet) return true;
        return wallet.code.length > 0 && SignatureChecker.isValidERC1271SignatureNowCalldata(wallet, digest, signature);
    }

    /// @dev Marks `nonce` of `wallet` used; reverts if it already was.
    function _useNonce(address wallet, uint256 nonce) private {
        uint256 bit = 1 << (nonce & 0xff);
        uint256 flipped = nonceBitmap[wallet][nonce >> 8] ^= bit;
        if (flipped & bit == 0) revert NonceAlreadyUsed(wallet, nonce);
    }

    /// @dev Marks `structHash` of `wallet` spent; reverts if it already was.
    function _useMerkleIntent(address wallet, bytes32 structHash) private {
        if (merkleIntentUsed[wallet][structHash]) revert IntentAlreadyUsed(wallet, structHash);
        merkleIntentUsed[wallet][structHash] = true;
    }

    /**
     * @dev Reverts unless the token's pair with the wrapped native token holds liquidity and, with
     * firstOrFail, got it in this block (see {_requireLaunchBlock}).
     */
    function _checkPool(address token, bool firstOrFail) private view {
        address pair = IV2Factory(factory).getPair(wrappedNative, token);
        if (pair == address(0)) revert NoPool(token);
        (uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast) = IV2Pair(pair).getReserves();
        if (reserve0 == 0 || reserve1 == 0) revert NoLiquidity(pair);
        if (firstOrFail) _requireLaunchBlock(pair, blockTimestampLast);
    }

    /**
     * @dev firstOrFail: this block must be the one in which the pool got its first liquidity.
     *
     * A Uniswap V2 pair adds to its cumulative prices in `_update` only when time has passed since
     * its last update (`block.timestamp` differs from `blockTimestampLast`) and it held reserves
     * before the update. The first liquidity (a `mint`, or a `sync` of donated tokens) therefore adds
     * nothing, and neither does any later update in a block with the same timestamp. So with
     * reserves present:
     *   - both cumulative prices 0: every update since the pool first held reserves happened at
     *     the timestamp of that first liquidity;
     *   - `blockTimestampLast == block.timestamp`: the last of them happened at this block's time.
     * Together: the pool got its first liquidity at this block's timestamp. On chains where every
     * block has a later timestamp than its parent (Ethereum), that is this very block. Where
     * several blocks share a timestamp, they cannot be told apart this way.
     */
    function _requireLaunchBlock(address pair, uint32 blockTimestampLast) private view {
        if (
            blockTimestampLast != uint32(block.timestamp) || IV2Pair(pair).price0CumulativeLast() != 0
                || IV2Pair(pair).price1CumulativeLast() != 0
        ) revert NotLaunchBlock(pair);
    }

    /**
     * @dev Takes `amount + bribe` from the wallet, swaps `amountIn` with the tokens sent straight to
     * the wallet, and returns what the wallet's balance grew by (after any token tax); reverts
     * below `minOut`. The router's own minimum is left at 0: this measurement is the check.
     */
    function _buy(BuyIntent calldata intent, uint256 amountIn) private returns (uint256 amountOut) {
        return _swapFor(intent.wallet, intent.token, amountIn, intent.amount + intent.bribe, intent.minOut);
    }

    /**
     * @dev Takes `taken` wrapped native from `wallet`, swaps `amountIn` of it for `token` sent
     * straight to `wallet`, and returns what the wallet's balance grew by; reverts below `minOut`.
     */
    function _swapFor(address wallet, address token, uint256 amountIn, uint256 taken, uint256 minOut) private returns (uint256 amountOut) {
        IERC20(wrappedNative).safeTransferFrom(wallet, address(this), taken);
        address[] memory path = new address[](2);
        path[0] = wrappedNative;
        path[1] = token;
        uint256 balanceBefore = IERC20(token).balanceOf(wallet);
        IV2Router(router).swapExactTokensForTokensSupportingFeeOnTransferTokens(amountIn, 0, path, wallet, block.timestamp);
        amountOut = IERC20(token).balanceOf(wallet) - balanceBefore;
        if (amountOut < minOut) revert InsufficientOutput(amountOut, minOut);
    }

    /// @dev Unwraps the fee and the bribe (taken from the wallet with the buy) and pays them in native coin.
    function _pay(BuyIntent calldata intent, uint256 fee) private {
        uint256 native = fee + intent.bribe;
        if (native > 0) IWrappedNative(wrappedNative).withdraw(native);
        if (fee > 0) _sendNative(intent.feeRecipient, fee);
        if (intent.bribe > 0) _sendNative(block.coinbase, intent.bribe);
    }

    function _sendNative(address to, uint256 amount) private {
        (bool ok,) = to.call{value: amount}("");
        if (!ok) revert NativeTransferFailed(to, amount);
    }
}
