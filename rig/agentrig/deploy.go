package agentrig

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
)

// Deploy sends the contract's creation transaction. The windows are whole seconds; zero means
// the seed's 4 minutes. The deployer becomes the contract's treasury.
func Deploy(opts *bind.TransactOpts, backend bind.ContractBackend, commitWindow, revealWindow time.Duration) (common.Address, *types.Transaction, error) {
	commit, err := windowSeconds("commit", commitWindow)
	if err != nil {
		return common.Address{}, nil, err
	}
	reveal, err := windowSeconds("reveal", revealWindow)
	if err != nil {
		return common.Address{}, nil, err
	}
	code, err := hexutil.Decode(AgentRigMetaData.Bin)
	if err != nil {
		return common.Address{}, nil, fmt.Errorf("committed bytecode: %w", err)
	}
	return bind.DeployContract(opts, code, backend, NewAgentRig().PackConstructor(commit, reveal))
}

func windowSeconds(name string, d time.Duration) (uint64, error) {
	if d < 0 || d%time.Second != 0 {
		return 0, fmt.Errorf("%s window %s must be whole seconds, not negative", name, d)
	}
	return uint64(d / time.Second), nil
}

// RevertError is a call or transaction the contract refused with one of its custom errors.
type RevertError struct {
	Name  string // the Solidity error's name, e.g. "NotEnoughRigs"
	Value any    // the decoded error, e.g. *AgentRigNotEnoughRigs; nil when it did not decode
	Data  []byte // the raw revert data, selector first
}

func (e *RevertError) Error() string {
	if e.Value != nil {
		return fmt.Sprintf("AgentRig reverted with %s %+v", e.Name, e.Value)
	}
	return fmt.Sprintf("AgentRig reverted with %s", e.Name)
}

// RevertData is the data the call reverted with, for the transaction manager's RevertData.
func (e *RevertError) RevertData() []byte { return e.Data }

// DecodeRevert finds one of the contract's custom errors in an error from eth_call or
// eth_estimateGas (which is where a reverting transaction fails when sent through bind).
func DecodeRevert(err error) (*RevertError, bool) {
	var re *RevertError
	if errors.As(err, &re) {
		return re, true
	}
	var de rpc.DataError
	if !errors.As(err, &de) {
		return nil, false
	}
	text, ok := de.ErrorData().(string)
	if !ok {
		return nil, false
	}
	data, derr := hexutil.Decode(text)
	if derr != nil || len(data) < 4 {
		return nil, false
	}
	return revertFromData(data)
}

func revertFromData(data []byte) (*RevertError, bool) {
	c := NewAgentRig()
	for name, e := range c.abi.Errors {
		if string(e.ID[:4]) != string(data[:4]) {
			continue
		}
		v, err := c.UnpackError(data)
		if err != nil {
			v = nil
		}
		return &RevertError{Name: name, Value: v, Data: data}, true
	}
	return nil, false
}

// IsRevert reports whether err is the contract refusing with the named custom error.
func IsRevert(err error, name string) bool {
	re, ok := DecodeRevert(err)
	return ok && strings.EqualFold(re.Name, name)
}
