package agentrig

import (
	"fmt"
	"strings"

	"github.com/pricerig/pricerig/rig/txm"
)

// The AgentRig contract's refusals: its custom errors decoded for the transaction manager (which
// knows no contract), and what each means for the person who asked.

// contractErrors decodes the AgentRig contract's custom errors.
type contractErrors struct{}

func init() { txm.RegisterErrors(contractErrors{}) }

// DecodeRevert finds one of the contract's custom errors in err, with its fields and what it
// means.
func (contractErrors) DecodeRevert(err error) (txm.ContractError, bool) {
	re, ok := DecodeRevert(err)
	if !ok {
		return txm.ContractError{}, false
	}
	e := txm.ContractError{Name: re.Name, Explain: explainRevert(re)}
	if re.Value != nil {
		e.Detail = strings.TrimPrefix(fmt.Sprintf("%+v", re.Value), "&")
	}
	return e, true
}

// RevertReason names the contract's custom error in a failed call or transaction, when the node
// returned its data; "" otherwise.
func RevertReason(err error) string {
	if re, ok := DecodeRevert(err); ok {
		return re.Name
	}
	return ""
}

// explainRevert says in words what the contract's refusals mean for the person who asked.
func explainRevert(re *RevertError) string {
	switch v := re.Value.(type) {
	case *AgentRigNotEnoughRigs:
		return fmt.Sprintf("the job has %s active rig(s), fewer than its quorum of %d, so nobody could answer the task; nothing is paid for it", v.Active, v.Quorum)
	case *AgentRigWrongValue:
		return fmt.Sprintf("the value must be exactly %s wei, not %s", v.Expected, v.Sent)
	case *AgentRigStakeTooLow:
		return fmt.Sprintf("the stake would be %s wei where %s wei is needed", v.Stake, v.Needed)
	case *AgentRigNotRigOwner:
		return fmt.Sprintf("this key does not own rig %d", v.RigId)
	case *AgentRigRigInactive:
		return fmt.Sprintf("rig %d is already deactivated", v.RigId)
	case *AgentRigUnknownRig:
		return fmt.Sprintf("there is no rig %d", v.RigId)
	case *AgentRigUnknownJob:
		return fmt.Sprintf("there is no job %d", v.JobId)
	case *AgentRigWrongPhase:
		return fmt.Sprintf("the task is in phase %d (%s)", v.Phase, Phase(v.Phase))
	case *AgentRigNonceUsed:
		return fmt.Sprintf("nonce %s was used already", v.Nonce)
	}
	switch re.Name {
	case "NothingToWithdraw":
		return "this key has no credits to withdraw"
	case "TooEarly":
		return "too early: a draw needs a block after the order's, a refund an hour after the order"
	case "BadSignature":
		return "the signature is not the operator's"
	case "ZeroOperator":
		return "the operator address is zero"
	}
	return ""
}
