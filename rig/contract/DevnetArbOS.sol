// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title DevnetArbOS — the devnet's stand-in for ArbOS's record of L1 blocks.
/// @notice On Robinhood Chain (Arbitrum Nitro) the EVM's NUMBER is ArbOS's recorded L1 block
/// number and BLOCKHASH(n) reads ArbOS's record of L1 hashes, kept by the StartBlock internal
/// transaction at the head of every block (OffchainLabs/nitro arbos/internal_tx.go,
/// arbos/blockhash/blockhash.go; go-ethereum fork core/vm/instructions.go). The devnet's sequencer
/// calls startBlock first in every block it seals, and the devnet build of AgentRig reads
/// l1BlockNumber and l1BlockHash instead of block.number and blockhash. The record follows
/// Nitro's, quirks included: a jump of the L1 number by two or more between two rollup blocks
/// leaves the slot of the old L1 number untouched (it keeps what was written 256 L1 blocks
/// earlier, or zero) and records the previous rollup block's hash under the new number minus one.
/// @dev Placed in the devnet's genesis at ArbOS's address (0x…0A4B05) with slot 0 (the L1 number
/// the chain starts at) and slot 1 (the sequencer) set; it is never deployed by a transaction.
contract DevnetArbOS {
    /// @notice The L1 block number the chain is at, block.number on Nitro (ArbOS's
    /// Blockhashes.l1BlockNumber: one past the newest recorded L1 block).
    uint256 public l1BlockNumber;
    /// @notice The only caller of startBlock: the devnet's sequencer.
    address public sequencer;
    /// @dev Hashes of the last 256 L1 numbers, at number % 256, as ArbOS keeps them.
    bytes32[256] private hashes;

    error NotSequencer();

    /// @notice ArbOS's StartBlock: when the L1 number of the block being sealed is past the
    /// recorded one, the previous rollup block's hash becomes the hash of the L1 number before
    /// it (and numbers skipped over get a hash derived from it). The sequencer names the parent
    /// it sealed for: a call the pool hands back after a reorg, in a block on another parent,
    /// does nothing.
    function startBlock(uint256 l1, bytes32 parentHash) external {
        if (msg.sender != sequencer) revert NotSequencer();
        if (blockhash(block.number - 1) != parentHash) return;
        if (l1 > l1BlockNumber) {
            _record(l1 - 1, blockhash(block.number - 1));
        }
    }

    /// @notice BLOCKHASH as Nitro answers it: the recorded hash of an L1 number within the last
    /// 256 below the current one, zero outside that reach.
    function l1BlockHash(uint256 number) external view returns (bytes32) {
        uint256 current = l1BlockNumber;
        if (number >= current || number + 256 < current) {
            return bytes32(0);
        }
        return hashes[number % 256];
    }

    /// @dev Blockhashes.RecordNewL1Block (ArbOS 8 and later: skipped numbers hash the number in
    /// little-endian).
    function _record(uint256 number, bytes32 hash) private {
        uint256 next = l1BlockNumber;
        if (next + 256 < number) {
            next = number - 256;
        }
        while (next + 1 < number) {
            next++;
            hashes[next % 256] = keccak256(abi.encodePacked(hash, _littleEndian64(uint64(next))));
        }
        hashes[number % 256] = hash;
        l1BlockNumber = number + 1;
    }

    function _littleEndian64(uint64 x) private pure returns (bytes8 out) {
        for (uint256 i = 0; i < 8; i++) {
            out |= bytes8(bytes1(uint8(x >> (8 * i)))) >> (8 * i);
        }
    }
}
