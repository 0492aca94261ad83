package txm

import (
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// revertCode is the JSON-RPC error code a node gives eth_call and eth_estimateGas when the call
// reverted (go-ethereum's revertError, which Arbitrum's Nitro inherits), the error's data being
// the bytes the contract reverted with, hex-encoded ("0x" for a bare revert).
const revertCode = 3

// ContractError is one of a contract's custom errors, decoded.
type ContractError struct {
	Name    string // the Solidity error's name, e.g. NotEnoughRigs
	Detail  string // its fields as text; "" when they did not decode
	Explain string // what it means for the person who asked; "" when nothing more is known
}

// ErrorDecoder reads one contract's custom errors. The transaction manager knows no contract: a
// contract's client registers its decoder (RegisterErrors), as the AgentRig client does.
type ErrorDecoder interface {
	// DecodeRevert finds one of the contract's custom errors in err (a node's error carrying the
	// revert data, or the contract's own decoded error); ok is false when err holds none.
	DecodeRevert(err error) (e ContractError, ok bool)
}

// decoders are the registered contracts' decoders, asked in turn.
var decoders []ErrorDecoder

// RegisterErrors adds a contract's custom errors to those RevertMessage, Prepare, SendPlan and the
// Sender's log of a reverted transaction name. Call it from an init function: the list is read
// without a lock.
func RegisterErrors(d ErrorDecoder) { decoders = append(decoders, d) }

// contractError is the first registered contract's decoding of err.
func contractError(err error) (ContractError, bool) {
	for _, d := range decoders {
		if e, ok := d.DecodeRevert(err); ok {
			return e, true
		}
	}
	return ContractError{}, false
}

// revertCarrier is an error that carries the data its call reverted with, such as a contract's
// decoded custom error from a simulated chain (agentrig.RevertError).
type revertCarrier interface {
	// RevertData is the data the call reverted with, selector first.
	RevertData() []byte
}

// RevertData returns the data a call reverted with, read from the node's error by its JSON-RPC
// code and data (rpc.Error, rpc.DataError), or from an error that carries it (the simulated
// chain's decoded custom error); ok is false when err is no revert (a transport failure, a node
// refusing a transaction). A revert whose data did not come back gives ok with no data.
func RevertData(err error) (data []byte, ok bool) {
	var custom revertCarrier
	if errors.As(err, &custom) {
		return custom.RevertData(), true
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

// RevertMessage says why a reverted call reverted, from its data: a registered contract's custom
// error by name, a require's message (Error(string)) or a panic (Panic(uint256)) as abi.UnpackRevert
// reads them, or the selector of an error nobody here knows. ok is false when err is no revert.
func RevertMessage(err error) (msg string, ok bool) {
	data, ok := RevertData(err)
	switch {
	case !ok:
		return "", false
	case len(data) == 0:
		return "reverted without a reason", true
	}
	if e, known := contractError(err); known {
		return e.Name, true
	}
	if reason, uerr := abi.UnpackRevert(data); uerr == nil {
		return reason, true
	}
	if len(data) >= 4 {
		return fmt.Sprintf("an unknown error %s", hexutil.Encode(data[:4])), true
	}
	return fmt.Sprintf("reverted with %s", hexutil.Encode(data)), true
}
