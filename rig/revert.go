package rig

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/pricerig/pricerig/rig/agentrig"
)

// revertCode is the JSON-RPC error code a node gives eth_call and eth_estimateGas when the call
// reverted (go-ethereum's revertError, which Arbitrum's Nitro inherits), the error's data being
// the bytes the contract reverted with, hex-encoded ("0x" for a bare revert).
const revertCode = 3

// RevertData returns the data a call reverted with, read from the node's error by its JSON-RPC
// code and data (rpc.Error, rpc.DataError), or from the simulated chain's decoded custom
// error; ok is false when err is no revert (a transport failure, a node refusing a
// transaction). A revert whose data did not come back gives ok with no data.
func RevertData(err error) (data []byte, ok bool) {
	var custom *agentrig.RevertError
	if errors.As(err, &custom) {
		return custom.Data, true
	}
	var re rpc.Error
	if !errors.As(err, &re) || re.ErrorCode() != revertCode {
		return nil, false
	}
	var de rpc.DataError
	if errors.As(err, &de) {
		if text, isText := de.ErrorData().(string); isText {
			if b, derr := hexutil.Decode(text); derr == nil {
				return b, true
			}
		}
	}
	return nil, true
}

// RevertMessage says why a reverted call reverted, from its data: the contract's custom error
// by name, a require's message (Error(string)) or a panic (Panic(uint256)) as abi.UnpackRevert
// reads them, or the selector of an error nobody here knows. ok is false when err is no revert.
func RevertMessage(err error) (msg string, ok bool) {
	data, ok := RevertData(err)
	switch {
	case !ok:
		return "", false
	case len(data) == 0:
		return "reverted without a reason", true
	}
	if re, known := agentrig.DecodeRevert(err); known {
		return re.Name, true
	}
	if reason, uerr := abi.UnpackRevert(data); uerr == nil {
		return reason, true
	}
	if len(data) >= 4 {
		return fmt.Sprintf("an unknown error %s", hexutil.Encode(data[:4])), true
	}
	return fmt.Sprintf("reverted with %s", hexutil.Encode(data)), true
}
