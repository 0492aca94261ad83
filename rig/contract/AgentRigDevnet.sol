// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AgentRig} from "./AgentRig.sol";
import {DevnetArbOS} from "./DevnetArbOS.sol";

/// @title AgentRigDevnet — AgentRig as the devnet runs it.
/// @notice The devnet is go-ethereum, whose block.number is the rollup block's own number. This
/// build reads the number and hashes Robinhood Chain's EVM gives AgentRig (the L1 block number,
/// and the hash of the last rollup block sealed under an L1 number) from the devnet's ArbOS
/// stand-in instead. Everything else is AgentRig.sol unchanged.
contract AgentRigDevnet is AgentRig {
    /// @dev ArbOS's address on Nitro chains, where the devnet's genesis puts DevnetArbOS.
    DevnetArbOS internal constant ARBOS = DevnetArbOS(0x00000000000000000000000000000000000A4B05);

    constructor(uint64 commitWindow_, uint64 revealWindow_) AgentRig(commitWindow_, revealWindow_) {}

    function _blockNumber() internal view override returns (uint256) {
        return ARBOS.l1BlockNumber();
    }

    function _blockHash(uint256 number) internal view override returns (bytes32) {
        return ARBOS.l1BlockHash(number);
    }
}
