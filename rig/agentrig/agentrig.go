// Code generated via abigen V2 - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package agentrig

import (
	"bytes"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Reference imports to suppress errors if they are not otherwise used.
var (
	_ = bytes.Equal
	_ = errors.New
	_ = big.NewInt
	_ = common.Big1
	_ = types.BloomLookup
	_ = abi.ConvertType
)

// AgentRigCommit is an auto generated low-level Go binding around an user-defined struct.
type AgentRigCommit struct {
	TaskId     *big.Int
	Commitment [32]byte
}

// AgentRigJobInfo is an auto generated low-level Go binding around an user-defined struct.
type AgentRigJobInfo struct {
	Builder      common.Address
	Kind         uint8
	Quorum       uint8
	Price        *big.Int
	Slash        *big.Int
	ToleranceBps uint32
	SpecURI      string
	ActiveRigs   *big.Int
}

// AgentRigOperatorFee is an auto generated low-level Go binding around an user-defined struct.
type AgentRigOperatorFee struct {
	Operator common.Address
	Bps      uint16
	Payee    common.Address
	Nonce    *big.Int
}

// AgentRigReveal is an auto generated low-level Go binding around an user-defined struct.
type AgentRigReveal struct {
	TaskId *big.Int
	Answer [32]byte
	Salt   [32]byte
}

// AgentRigRigInfo is an auto generated low-level Go binding around an user-defined struct.
type AgentRigRigInfo struct {
	Operator common.Address
	Owner    common.Address
	JobId    uint32
	Active   bool
	Stake    *big.Int
	Locked   *big.Int
}

// AgentRigTaskInfo is an auto generated low-level Go binding around an user-defined struct.
type AgentRigTaskInfo struct {
	JobId          uint32
	Phase          uint8
	Orderer        common.Address
	Paid           *big.Int
	InputHash      [32]byte
	OrderBlock     uint64
	OrderedAt      uint64
	CommitDeadline uint64
	RevealDeadline uint64
	RigIds         []uint64
	CommittedMask  uint8
	RevealedMask   uint8
	Commitments    [][32]byte
	Answers        [][32]byte
	Agreed         bool
	Answer         [32]byte
	Agree          uint8
}

// AgentRigMetaData contains all meta data concerning the AgentRig contract.
var AgentRigMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"commitWindow_\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"revealWindow_\",\"type\":\"uint64\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[],\"name\":\"AlreadyDone\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"count\",\"type\":\"uint256\"},{\"internalType\":\"uint8\",\"name\":\"quorum\",\"type\":\"uint8\"}],\"name\":\"BadAnswers\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"bps\",\"type\":\"uint16\"}],\"name\":\"BadBps\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint8\",\"name\":\"kind\",\"type\":\"uint8\"}],\"name\":\"BadKind\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint96\",\"name\":\"price\",\"type\":\"uint96\"}],\"name\":\"BadPrice\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint8\",\"name\":\"quorum\",\"type\":\"uint8\"}],\"name\":\"BadQuorum\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"BadSignature\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint96\",\"name\":\"slash\",\"type\":\"uint96\"}],\"name\":\"BadSlash\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint32\",\"name\":\"toleranceBps\",\"type\":\"uint32\"}],\"name\":\"BadTolerance\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"CommitmentMismatch\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"EmptyOrder\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"LengthMismatch\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"}],\"name\":\"NonceUsed\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotCommitted\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotDrawn\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"active\",\"type\":\"uint256\"},{\"internalType\":\"uint8\",\"name\":\"quorum\",\"type\":\"uint8\"}],\"name\":\"NotEnoughRigs\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"rigId\",\"type\":\"uint64\"}],\"name\":\"NotRigOwner\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NothingToWithdraw\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"rigId\",\"type\":\"uint64\"}],\"name\":\"RigInactive\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"StakeTooHigh\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"stake\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"needed\",\"type\":\"uint256\"}],\"name\":\"StakeTooLow\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"TooEarly\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"TransferFailed\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint32\",\"name\":\"jobId\",\"type\":\"uint32\"}],\"name\":\"UnknownJob\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"rigId\",\"type\":\"uint64\"}],\"name\":\"UnknownRig\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint8\",\"name\":\"phase\",\"type\":\"uint8\"}],\"name\":\"WrongPhase\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"sent\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"expected\",\"type\":\"uint256\"}],\"name\":\"WrongValue\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ZeroOperator\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"uint64\",\"name\":\"rigId\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"commitment\",\"type\":\"bytes32\"}],\"name\":\"Committed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint8\",\"name\":\"reason\",\"type\":\"uint8\"}],\"name\":\"Credited\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint32\",\"name\":\"jobId\",\"type\":\"uint32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"builder\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint8\",\"name\":\"kind\",\"type\":\"uint8\"},{\"indexed\":false,\"internalType\":\"uint8\",\"name\":\"quorum\",\"type\":\"uint8\"},{\"indexed\":false,\"internalType\":\"uint96\",\"name\":\"price\",\"type\":\"uint96\"},{\"indexed\":false,\"internalType\":\"uint96\",\"name\":\"slash\",\"type\":\"uint96\"},{\"indexed\":false,\"internalType\":\"uint32\",\"name\":\"toleranceBps\",\"type\":\"uint32\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"specURI\",\"type\":\"string\"}],\"name\":\"JobPublished\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"operator\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"payee\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint16\",\"name\":\"bps\",\"type\":\"uint16\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"}],\"name\":\"OperatorFeeSet\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"orderBlock\",\"type\":\"uint64\"}],\"name\":\"Reanchored\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"orderer\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"Refunded\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"revealDeadline\",\"type\":\"uint64\"}],\"name\":\"RevealOpened\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"uint64\",\"name\":\"rigId\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"answer\",\"type\":\"bytes32\"}],\"name\":\"Revealed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint64\",\"name\":\"rigId\",\"type\":\"uint64\"}],\"name\":\"RigDeactivated\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint64\",\"name\":\"rigId\",\"type\":\"uint64\"},{\"indexed\":true,\"internalType\":\"uint32\",\"name\":\"jobId\",\"type\":\"uint32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"operator\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"stake\",\"type\":\"uint256\"}],\"name\":\"RigRegistered\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"bool\",\"name\":\"agreed\",\"type\":\"bool\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"answer\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"uint8\",\"name\":\"agree\",\"type\":\"uint8\"},{\"indexed\":false,\"internalType\":\"uint8\",\"name\":\"reveals\",\"type\":\"uint8\"}],\"name\":\"Settled\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"index\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint8\",\"name\":\"reason\",\"type\":\"uint8\"}],\"name\":\"Skipped\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"uint64\",\"name\":\"rigId\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"uint96\",\"name\":\"amount\",\"type\":\"uint96\"},{\"indexed\":false,\"internalType\":\"uint8\",\"name\":\"reason\",\"type\":\"uint8\"}],\"name\":\"Slashed\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint64\",\"name\":\"rigId\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"stake\",\"type\":\"uint256\"}],\"name\":\"StakeChanged\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"uint32\",\"name\":\"jobId\",\"type\":\"uint32\"},{\"indexed\":false,\"internalType\":\"uint64[]\",\"name\":\"rigIds\",\"type\":\"uint64[]\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"commitDeadline\",\"type\":\"uint64\"},{\"indexed\":false,\"internalType\":\"uint64\",\"name\":\"revealDeadline\",\"type\":\"uint64\"}],\"name\":\"TaskDrawn\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"uint32\",\"name\":\"jobId\",\"type\":\"uint32\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"orderer\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"bytes32\",\"name\":\"inputHash\",\"type\":\"bytes32\"},{\"indexed\":false,\"internalType\":\"string\",\"name\":\"inputURI\",\"type\":\"string\"}],\"name\":\"TaskOrdered\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"Withdrawn\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"rigId\",\"type\":\"uint64\"}],\"name\":\"addStake\",\"outputs\":[],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint8\",\"name\":\"kind\",\"type\":\"uint8\"},{\"internalType\":\"uint8\",\"name\":\"quorum\",\"type\":\"uint8\"},{\"internalType\":\"uint32\",\"name\":\"toleranceBps\",\"type\":\"uint32\"},{\"internalType\":\"bytes32[]\",\"name\":\"answers\",\"type\":\"bytes32[]\"}],\"name\":\"agreement\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"answer\",\"type\":\"bytes32\"},{\"internalType\":\"bool\",\"name\":\"agreed\",\"type\":\"bool\"},{\"internalType\":\"uint8\",\"name\":\"agree\",\"type\":\"uint8\"},{\"internalType\":\"uint8\",\"name\":\"verdicts\",\"type\":\"uint8\"}],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"}],\"name\":\"answerOf\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"status\",\"type\":\"uint8\"},{\"internalType\":\"bool\",\"name\":\"agreed\",\"type\":\"bool\"},{\"internalType\":\"bytes32\",\"name\":\"answer\",\"type\":\"bytes32\"},{\"internalType\":\"uint8\",\"name\":\"agree\",\"type\":\"uint8\"},{\"internalType\":\"uint8\",\"name\":\"reveals\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"commitment\",\"type\":\"bytes32\"}],\"name\":\"commit\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"commitment\",\"type\":\"bytes32\"}],\"name\":\"commitDigest\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"commitment\",\"type\":\"bytes32\"}],\"internalType\":\"structAgentRig.Commit[]\",\"name\":\"entries\",\"type\":\"tuple[]\"},{\"internalType\":\"bytes[]\",\"name\":\"signatures\",\"type\":\"bytes[]\"}],\"name\":\"commitMany\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"applied\",\"type\":\"uint256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"commitWindow\",\"outputs\":[{\"internalType\":\"uint64\",\"name\":\"\",\"type\":\"uint64\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"},{\"internalType\":\"uint64\",\"name\":\"rigId\",\"type\":\"uint64\"},{\"internalType\":\"bytes32\",\"name\":\"answer\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"name\":\"commitmentHash\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"pure\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"credits\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"rigId\",\"type\":\"uint64\"}],\"name\":\"deactivateRig\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"domainSeparator\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"}],\"name\":\"draw\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"jobCount\",\"outputs\":[{\"internalType\":\"uint32\",\"name\":\"\",\"type\":\"uint32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint32\",\"name\":\"jobId\",\"type\":\"uint32\"}],\"name\":\"jobOf\",\"outputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"builder\",\"type\":\"address\"},{\"internalType\":\"uint8\",\"name\":\"kind\",\"type\":\"uint8\"},{\"internalType\":\"uint8\",\"name\":\"quorum\",\"type\":\"uint8\"},{\"internalType\":\"uint96\",\"name\":\"price\",\"type\":\"uint96\"},{\"internalType\":\"uint96\",\"name\":\"slash\",\"type\":\"uint96\"},{\"internalType\":\"uint32\",\"name\":\"toleranceBps\",\"type\":\"uint32\"},{\"internalType\":\"string\",\"name\":\"specURI\",\"type\":\"string\"},{\"internalType\":\"uint256\",\"name\":\"activeRigs\",\"type\":\"uint256\"}],\"internalType\":\"structAgentRig.JobInfo\",\"name\":\"\",\"type\":\"tuple\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint32\",\"name\":\"jobId\",\"type\":\"uint32\"}],\"name\":\"jobRigs\",\"outputs\":[{\"internalType\":\"uint64[]\",\"name\":\"\",\"type\":\"uint64[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"operator\",\"type\":\"address\"},{\"internalType\":\"uint16\",\"name\":\"bps\",\"type\":\"uint16\"},{\"internalType\":\"address\",\"name\":\"payee\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"}],\"internalType\":\"structAgentRig.OperatorFee\",\"name\":\"fee\",\"type\":\"tuple\"}],\"name\":\"operatorFeeDigest\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"operatorFees\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"operator\",\"type\":\"address\"},{\"internalType\":\"uint16\",\"name\":\"bps\",\"type\":\"uint16\"},{\"internalType\":\"address\",\"name\":\"payee\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint32\",\"name\":\"jobId\",\"type\":\"uint32\"},{\"internalType\":\"bytes32\",\"name\":\"inputHash\",\"type\":\"bytes32\"},{\"internalType\":\"string\",\"name\":\"inputURI\",\"type\":\"string\"}],\"name\":\"order\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint32\",\"name\":\"jobId\",\"type\":\"uint32\"},{\"internalType\":\"bytes32[]\",\"name\":\"inputHashes\",\"type\":\"bytes32[]\"},{\"internalType\":\"string[]\",\"name\":\"inputURIs\",\"type\":\"string[]\"}],\"name\":\"orderMany\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"firstTaskId\",\"type\":\"uint256\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"}],\"name\":\"phaseOf\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint8\",\"name\":\"kind\",\"type\":\"uint8\"},{\"internalType\":\"uint8\",\"name\":\"quorum\",\"type\":\"uint8\"},{\"internalType\":\"uint96\",\"name\":\"price\",\"type\":\"uint96\"},{\"internalType\":\"uint96\",\"name\":\"slash\",\"type\":\"uint96\"},{\"internalType\":\"uint32\",\"name\":\"toleranceBps\",\"type\":\"uint32\"},{\"internalType\":\"string\",\"name\":\"specURI\",\"type\":\"string\"}],\"name\":\"publishJob\",\"outputs\":[{\"internalType\":\"uint32\",\"name\":\"jobId\",\"type\":\"uint32\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"}],\"name\":\"refund\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint32\",\"name\":\"jobId\",\"type\":\"uint32\"},{\"internalType\":\"address\",\"name\":\"operator\",\"type\":\"address\"}],\"name\":\"registerRig\",\"outputs\":[{\"internalType\":\"uint64\",\"name\":\"rigId\",\"type\":\"uint64\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"answer\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"name\":\"reveal\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"answer\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"name\":\"revealDigest\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"answer\",\"type\":\"bytes32\"},{\"internalType\":\"bytes32\",\"name\":\"salt\",\"type\":\"bytes32\"}],\"internalType\":\"structAgentRig.Reveal[]\",\"name\":\"entries\",\"type\":\"tuple[]\"},{\"internalType\":\"bytes[]\",\"name\":\"signatures\",\"type\":\"bytes[]\"}],\"name\":\"revealMany\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"applied\",\"type\":\"uint256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"revealWindow\",\"outputs\":[{\"internalType\":\"uint64\",\"name\":\"\",\"type\":\"uint64\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"rigCount\",\"outputs\":[{\"internalType\":\"uint64\",\"name\":\"\",\"type\":\"uint64\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"rigId\",\"type\":\"uint64\"}],\"name\":\"rigOf\",\"outputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"operator\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"uint32\",\"name\":\"jobId\",\"type\":\"uint32\"},{\"internalType\":\"bool\",\"name\":\"active\",\"type\":\"bool\"},{\"internalType\":\"uint96\",\"name\":\"stake\",\"type\":\"uint96\"},{\"internalType\":\"uint96\",\"name\":\"locked\",\"type\":\"uint96\"}],\"internalType\":\"structAgentRig.RigInfo\",\"name\":\"\",\"type\":\"tuple\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"components\":[{\"internalType\":\"address\",\"name\":\"operator\",\"type\":\"address\"},{\"internalType\":\"uint16\",\"name\":\"bps\",\"type\":\"uint16\"},{\"internalType\":\"address\",\"name\":\"payee\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"nonce\",\"type\":\"uint256\"}],\"internalType\":\"structAgentRig.OperatorFee\",\"name\":\"fee\",\"type\":\"tuple\"},{\"internalType\":\"bytes\",\"name\":\"signature\",\"type\":\"bytes\"}],\"name\":\"setOperatorFee\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"}],\"name\":\"settle\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"taskCount\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"taskId\",\"type\":\"uint256\"}],\"name\":\"taskOf\",\"outputs\":[{\"components\":[{\"internalType\":\"uint32\",\"name\":\"jobId\",\"type\":\"uint32\"},{\"internalType\":\"uint8\",\"name\":\"phase\",\"type\":\"uint8\"},{\"internalType\":\"address\",\"name\":\"orderer\",\"type\":\"address\"},{\"internalType\":\"uint96\",\"name\":\"paid\",\"type\":\"uint96\"},{\"internalType\":\"bytes32\",\"name\":\"inputHash\",\"type\":\"bytes32\"},{\"internalType\":\"uint64\",\"name\":\"orderBlock\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"orderedAt\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"commitDeadline\",\"type\":\"uint64\"},{\"internalType\":\"uint64\",\"name\":\"revealDeadline\",\"type\":\"uint64\"},{\"internalType\":\"uint64[]\",\"name\":\"rigIds\",\"type\":\"uint64[]\"},{\"internalType\":\"uint8\",\"name\":\"committedMask\",\"type\":\"uint8\"},{\"internalType\":\"uint8\",\"name\":\"revealedMask\",\"type\":\"uint8\"},{\"internalType\":\"bytes32[]\",\"name\":\"commitments\",\"type\":\"bytes32[]\"},{\"internalType\":\"bytes32[]\",\"name\":\"answers\",\"type\":\"bytes32[]\"},{\"internalType\":\"bool\",\"name\":\"agreed\",\"type\":\"bool\"},{\"internalType\":\"bytes32\",\"name\":\"answer\",\"type\":\"bytes32\"},{\"internalType\":\"uint8\",\"name\":\"agree\",\"type\":\"uint8\"}],\"internalType\":\"structAgentRig.TaskInfo\",\"name\":\"info\",\"type\":\"tuple\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"treasury\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"name\":\"usedNonces\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"withdraw\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint64\",\"name\":\"rigId\",\"type\":\"uint64\"},{\"internalType\":\"uint96\",\"name\":\"amount\",\"type\":\"uint96\"}],\"name\":\"withdrawStake\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "AgentRig",
	Bin: "0x60e0346100d857601f6140aa38819003918201601f19168301916001600160401b038311848410176100dc5780849260409485528339810103126100d857610052602061004b836100f0565b92016100f0565b906001600160401b0381166100d3575060f05b6080526001600160401b0381166100ce575060f05b60a0523360c052604051613fa590816101058239608051818181611abb0152612c07015260a05181818161169c01528181612c5c015261371d015260c051818181611595015281816115fe01526117600152f35b61007a565b610065565b5f80fd5b634e487b7160e01b5f52604160045260245ffd5b51906001600160401b03821682036100d85756fe60c06040526004361015610011575f80fd5b5f3560e01c80630516b222146124a357806311d6434a1461243357806318bbf7d61461229b5780631f5a8d0c1461208e578063224de6d514611ff957806325fad1b814611dd8578063278ecde114611d365780633574223c14611cef5780633b30414714611cd35780633ccfd60b14611c0d5780633d8e9c5014611adf5780634069900514611a9c57806342bfaa7014611a6257806348d6d68e14611a495780634c5d8a0f14611a2757806356ae98331461178f57806361d027b31461174b5780636a8a6894146117025780636df91a3c146116e757806385b77f70146116c0578063863d22c71461167d5780638df828001461104b5780639a243ebf14611017578063a1c4b87c14610f3d578063ab960d5714610e35578063af697a6f14610e16578063b6cb58a514610df9578063b79d3fdc14610ca3578063bc4e7bfb14610ae1578063cb9dad1e14610a75578063d5b36e2414610768578063d983b463146103ff578063dc53042b1461030e578063e68ed0cc14610234578063f2f038771461020e578063f698da25146101ec5763fe5ff468146101b0575f80fd5b346101e85760203660031901126101e8576001600160a01b036101d16125ae565b165f526005602052602060405f2054604051908152f35b5f80fd5b346101e8575f3660031901126101e8576020610206613252565b604051908152f35b346101e85761023261022c610222366124bc565b91909133836135ee565b90613d5f565b005b60603660031901126101e8576102486124e8565b6044356001600160401b0381116101e8576102679036906004016124fb565b916102718161344d565b9060018201916001600160601b038354166001810290808204600114901517156102fa578034036102e4575060ff6003820154915460a81c16908181106102cf576020610206878787876001600160601b0360243592541690613b1a565b6301ec833f60e61b5f5260045260245260445ffd5b63195a3ca160e01b5f523460045260245260445ffd5b634e487b7160e01b5f52601160045260245ffd5b346101e85760203660031901126101e85760c061035d61032c6124d2565b5f60a060405161033b81612600565b828152826020820152826040820152826060820152826080820152015261340e565b6001600160601b0381548160018060a01b038216938160026001830154920154169263ffffffff60405161039081612600565b8781526020810160018060a01b038516815260a060408301928486831c16845260ff60608201968d1c16151586526080810196821c87520196875260405198895260018060a01b03905116602089015251166040870152511515606086015251166080840152511660a0820152f35b346101e85760c03660031901126101e8576104186125c4565b6104206125d4565b90604435906001600160601b0382168092036101e857606435916001600160601b038316918284036101e8576084359363ffffffff85168086036101e85760a4356001600160401b0381116101e85761047d9036906004016124fb565b95909261048b888a87613a83565b64e8d4a5100086108015610757575b61074457662386f26fc100008211610731575f549763ffffffff89169163ffffffff83146102fa5763ffffffff19909916600192830163ffffffff169081175f908155818152600260208190526040909120805460a88e901b60ff60a81b1665ffffffffffff60a01b1933166001600160d01b03199092169190911760a08b901b60ff60a01b16171760b09490941b63ffffffff60b01b1693909317835592820180546bffffffffffffffffffffffff60601b198a166001600160c01b03199091161760609b909b1b6bffffffffffffffffffffffff60601b169a909a1790995501946001600160401b03871161071d576020988661059a8a985461271c565b601f81116106dc575b50885f601f8211600114610642577ff71d26e39c6c7f2dc07b0d751cb8ba556a8169c22a1dc8a4b9ccdcd88d70d0d298969361062c96938360ff9a97948b945f91610637575b508160011b915f199060031b1c19161790555b604051988998168852168c87015260408601526060850152608084015260c060a0840152339660c0840191613232565b0390a3604051908152f35b90508801355f6105e9565b5f8381528d812092508b90601f198216905b8181106106bf57509360ff9996938a93837ff71d26e39c6c7f2dc07b0d751cb8ba556a8169c22a1dc8a4b9ccdcd88d70d0d29d9b989461062c9b98106106a5575b905060018092501b0190556105fc565b60f85f199160031b161c19908901351690558f808e610695565b838b013585558e9c50600190940193928f01928d92508f01610654565b898111156105a35761070f90825f528c5f2090601f8c0160051c908e8d10610715575b601f82910160051c0391016128cc565b8b6105a3565b5f91506106ff565b634e487b7160e01b5f52604160045260245ffd5b506367406d1f60e01b5f5260045260245ffd5b85635077d1f760e11b5f5260045260245ffd5b50670de0b6b3a7640000861161049a565b346101e85760203660031901126101e85760405161022081018181106001600160401b0382111761071d576040525f81525f60208201525f60408201525f60608201525f60808201525f60a08201525f60c08201525f60e08201525f61010082015260606101208201525f6101408201525f610160820152606061018082015260606101a08201525f6101c08201525f6101e08201525f6102008201526004355f52600460205260ff60405f20600481549163ffffffff831685528361082d82613317565b166020860152600281015460018060a01b038116604087015260a01c6060860152600381015460808601526001600160401b038360501c1660a08601526001600160401b038360901c1660c08601526001600160401b03600182015481811660e088015260401c166101008601526108a76005820161279e565b610120860152838360281c16610140860152838360301c166101608601526108d1600682016131ea565b6101808601526108e3600782016131ea565b6101a0860152838360381c1615156101c086015201546101e084015260401c166102008201526040516020815263ffffffff825116602082015260ff602083015116604082015260018060a01b0360408301511660608201526001600160601b036060830151166080820152608082015160a08201526001600160401b0360a08301511660c08201526001600160401b0360c08301511660e08201526001600160401b0360e0830151166101008201526001600160401b036101008301511661012082015261012082015191610220610140830152825180610240840152602061026084019401905f5b818110610a565750505060ff610200610a30610a18859684610140870151166101608801528461016087015116610180880152610180860151601f19888303016101a0890152612653565b6101a0850151868203601f19016101c0880152612653565b926101c081015115156101e08601526101e0810151828601520151166102208301520390f35b82516001600160401b03168652602095860195909201916001016109cd565b346101e85760203660031901126101e8576001600160a01b03610a966125ae565b165f526006602052608060405f20805490600260018060a01b036001830154169101549061ffff6040519360018060a01b038116855260a01c16602084015260408301526060820152f35b346101e85760403660031901126101e857610afa6124d2565b602435906001600160601b0382168083036101e857610b188261340e565b600181018054919490916001600160a01b0381163303610c875760a01c6001600160601b03610b4d81600289015416836131ca565b16808511610c70575090610b60916131ca565b935463ffffffff8160a01c165f52600260205260ff6001600160601b03600160405f20015460601c169160c01c1680610c5e575b610c3f575080546001600160a01b031660a085901b6001600160a01b0319161781557f73a678c951c7bef7e80f76f224dcf2a312c2a921280192725c64d950e3a97fc8926020926001600160401b03925f91905f516020613f505f395f51905f5290604090546001600160a01b0316808552600588528185208054919491610c1d908390612754565b90558151908152600788820152a36001600160601b03604051951685521692a2005b6001600160601b038563829f116360e01b5f521660045260245260445ffd5b50806001600160601b03861610610b94565b849063829f116360e01b5f5260045260245260445ffd5b6001600160401b0385630aa4fbf160e21b5f521660045260245ffd5b346101e85760403660031901126101e8576004356001600160401b0381116101e857366023820112156101e85780600401356001600160401b0381116101e85736602460608302840101116101e8576024356001600160401b0381116101e857610d11903690600401612564565b5f90808403610dea575f915b84831015610ddf5760608302860160248101359060646044820135910135610d5a610d498284866130d2565b610d5488888b613048565b91613483565b916001600160a01b038316610dd05750505060015b60ff8116610d8d575050610d84600191613089565b925b0191610d1d565b6040805186815260ff92909216602083015292946001939092917fef15244b264fc3ca4c04d1f59d40b4f5fe93f0f2fca30db97eaac82da8cabc219190a2610d86565b610dda9284613c0e565b610d6f565b602090604051908152f35b631fec674760e31b5f5260045ffd5b346101e8575f3660031901126101e8576020600154604051908152f35b346101e85761023261022c610e2a36612594565b909291923384613c0e565b60603660031901126101e857610e496124e8565b6024356001600160401b0381116101e857610e68903690600401612564565b906044356001600160401b0381116101e857610e88903690600401612564565b808495929503610dea578315610f2e57610ea18261344d565b6001810190610eba866001600160601b038454166128b9565b8034036102e4575060ff6003820154915460a81c16908181106102cf575050600154600181018091116102fa575f5b86811015610f2357600190610f1c6001600160601b03855416610f0d83888d613048565b918460051b8b0135908a613b1a565b5001610ee9565b602082604051908152f35b631630779760e01b5f5260045ffd5b346101e85760803660031901126101e857610f566125c4565b610f5e6125d4565b6044359063ffffffff821682036101e857606435926001600160401b0384116101e857366023850112156101e857836004013593610f9b8561263c565b94610fa9604051968761261b565b8086526024602087019160051b830101913683116101e857602401905b82821061100757608060ff80610fe98a8a8a8a610fe4838383613a83565b6137a9565b92949160405195865215156020860152166040840152166060820152f35b8135815260209182019101610fc6565b346101e85760203660031901126101e8576004355f526004602052602061104060405f20613317565b60ff60405191168152f35b346101e85760203660031901126101e8576004355f52600460205260405f2060ff61107582613317565b166004810361166b5750805463ffffffff81165f52600260205260405f2060058301549160301c6110a860ff82166133de565b926110b2846128e7565b915f5f5b83811061162857505050906110e091835460ff8063ffffffff8360b01c1693169160a01c166137a9565b865460048801859055604083901b68ff00000000000000001669ffffff0000ff000000001990911684151560381b67ff00000000000000161717604887901b69ff000000000000000000161764030000000017875560018501545f9560609190911c6001600160601b031694919286928392835b8b60058101548210156112ef576111768260056001600160401b0393016126e7565b90549060031b1c165f52600360205260405f20600281016001600160601b036111a28c828454166131ca565b166001600160601b03198254161790558c5460ff6001841b8260301c1616155f146112aa5760281c6001831b1660ff166112a2578c60015b915b8b611243575b50906001600160401b036111fc84600560019695016126e7565b90549060031b1c169060ff604051918d83521660208201527f57eeca6a17364a8e730f511bd55ed18a8f2609c9579b6c0a4e706e0ce04c4c0a604060043592a35b01611154565b6111fc84600560019695949f8f611295916112908a6001600160401b03980161127084825460a01c6131ca565b81546001600160a01b031660a09190911b6001600160a01b031916179055565b612754565b9f949550509450506111e2565b8c60026111da565b506112bf60ff6001881b8a1616151596613089565b9589156112e5576112d3578c6003916111dc565b509460019060ff82881b16179561123d565b505060019061123d565b848b85858f8d8c91815f146115bf576002880196875460a01c6103e881028181046103e814821517156102fa5761133561133a9261271060ff869d9a9d169304906126da565b613a79565b9561134860ff831689613a79565b97881515965f5b60058d01548110156114be5780808e60ff600180951b8c1616156114b7576001600160401b0391600561138292016126e7565b90549060031b1c165f52600360205260405f208a8c6113d4858060a01b0384541691825f52600660205260405f20906127106113c661ffff845460a01c16836128b9565b04918261146a575b506126da565b90805f52600560205260405f206113ec838254612754565b90556040519182528560208301525f516020613f505f395f51905f52604060043593a361141c575b505b0161134f565b82808060a01b0391015416805f5260056020528c61143f60405f20918254612754565b9055604051908d8252600460208301525f516020613f505f395f51905f52604060043593a38e611414565b88808060a01b0391015416805f52600560205260405f2061148c848254612754565b905560405190838252600260208301525f516020613f505f395f51905f52604060043593a35f6113ce565b5050611416565b50909398919550611541949a506114f69296506114fc60ff9a986114f68c9a60018060a01b03905416935460a01c918b8b16906128b9565b906126da565b90805f52600560205260405f20611514838254612754565b9055604051918252600360208301525f516020613f505f395f51905f52604060043593a3868616906128b9565b8061158c575b505b604051951515865260208601521660408401521660608201527fed3e9baee4d099f8b44b68131810ee394f01a00c43f0998c7d131cef786456fc608060043592a2005b6115b9906004357f0000000000000000000000000000000000000000000000000000000000000000613a35565b86611547565b94909660ff9693508694925060026115e99101548060a01c906004359060018060a01b03166139f1565b806115f5575b50611549565b611622906004357f0000000000000000000000000000000000000000000000000000000000000000613a35565b866115ef565b8060ff600180931b85161661163e575b016110b6565b61164b8160078b016131b5565b90549060031b1c61166561165e85613089565b94886128a5565b52611638565b6396fe8cdd60e01b5f5260045260245ffd5b346101e8575f3660031901126101e85760206040516001600160401b037f0000000000000000000000000000000000000000000000000000000000000000168152f35b346101e8575f3660031901126101e85760206001600160401b035f54821c16604051908152f35b346101e85760803660031901126101e8576020610206613121565b346101e85760403660031901126101e8576001600160a01b036117236125ae565b165f52600760205260405f206024355f52602052602060ff60405f2054166040519015158152f35b346101e8575f3660031901126101e8576040517f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03168152602090f35b60403660031901126101e8576117a36124e8565b6024356001600160a01b038116908190036101e8576117c18261344d565b908015611a18576001600160601b03600183015460601c16803410611a0257506001600160601b0334116119f3575f54916001600160401b038360201c16906001600160401b0382146102fa57600160039201936bffffffffffffffff000000006001600160401b0386169560201b16906bffffffffffffffff000000001916175f55019263ffffffff845416906040519060e08201908282106001600160401b0383111761071d57604091825284835263ffffffff1660208084018281526001858501908152606086019687523360808701908152346001600160601b0390811660a0808a019182525f60c0808c018281528f8352600390995299902099518a54965195519b516001600160e81b03199097166001600160a01b03919091161794901b63ffffffff60a01b169390931798151590961b60ff60c01b169790971760c89290921b63ffffffff60c81b1691909117855591946002928492916119629184909151600189018054935160a084811b959095166001600160a01b039081169316929092179190921690921b6001600160a01b031916919091179055565b5116920191166001600160601b0319825416179055835493600160401b85101561071d576119ba61199c86869360016020990181556126e7565b81939154906001600160401b03809160031b9316831b921b19161790565b9055827f725ba58a2b15eabffadae46398d7239cace147d18b12514176677fdae94d0160604080513381523488820152a4604051908152f35b63735b16e360e01b5f5260045ffd5b63829f116360e01b5f523460045260245260445ffd5b6389961e9160e01b5f5260045ffd5b346101e8575f3660031901126101e857602063ffffffff5f5416604051908152f35b346101e8576020610206611a5c36612594565b916130d2565b346101e85760803660031901126101e8576024356001600160401b03811681036101e8576102066020916064359060443590600435613097565b346101e8575f3660031901126101e85760206040516001600160401b037f0000000000000000000000000000000000000000000000000000000000000000168152f35b346101e85760403660031901126101e8576004356001600160401b0381116101e857366023820112156101e85780600401356001600160401b0381116101e8573660248260061b840101116101e8576024356001600160401b0381116101e857611b4d903690600401612564565b5f90808403610dea575f915b84831015610ddf578260061b860160446024820135910135611b89611b7e8284612686565b610d5487878a613048565b906001600160a01b038216611bfe57505060015b60ff8116611bbb575050611bb2600191613089565b925b0191611b59565b6040805186815260ff92909216602083015292946001939092917fef15244b264fc3ca4c04d1f59d40b4f5fe93f0f2fca30db97eaac82da8cabc219190a2611bb4565b611c0891836135ee565b611b9d565b346101e8575f3660031901126101e857335f52600560205260405f20548015611cc4575f8080809333825260056020528160408120556040518181527f7084f5476618d8e60b11ef0d7d3f06914655adb8793e28ff7f018d4c76d505d560203392a2335af13d15611cbf573d6001600160401b03811161071d5760405190611c9f601f8201601f19166020018361261b565b81525f60203d92013e5b15611cb057005b6312171d8360e31b5f5260045ffd5b611ca9565b630686827b60e51b5f5260045ffd5b346101e85760203660031901126101e857610232600435612939565b346101e85760203660031901126101e857611d32611d1e6003611d18611d136124e8565b61344d565b0161279e565b604051918291602083526020830190612528565b0390f35b346101e85760203660031901126101e857600435805f52600460205260405f20805460ff8160201c166005811015611dc457600103611da6576001600160401b039060901c16610e1081018091116102fa574210611d975761023291613561565b63085de62560e01b5f5260045ffd5b60ff611db183613317565b6396fe8cdd60e01b5f521660045260245ffd5b634e487b7160e01b5f52602160045260245ffd5b346101e857366003190160a081126101e8576080136101e8576084356001600160401b0381116101e857611e109036906004016124fb565b9061271061ffff611e1f612761565b1611611fdb576001600160a01b03611e35612772565b165f52600760205260405f209160643592835f5260205260ff60405f205416611fc8576001600160a01b0391611e739190611e6e613121565b613483565b168015908115611fad575b50611f9e576001600160a01b03611e93612772565b165f52600760205260405f20815f5260205260405f20600160ff1982541617905560018060a01b03611ec3612772565b165f52600660205280600260405f2060018060a01b03611ee1612772565b82546001600160a01b0319169116178155611efa612761565b815461ffff60a01b191660a09190911b61ffff60a01b16178155611f1c612788565b6001820180546001600160a01b0319166001600160a01b039092169190911790550155611f47612772565b907ffddedf2b9e126a76f37f3f043ff5f260c1b5dcec7cfb84168931c329702ee83a6040611f73612788565b611f7b612761565b825161ffff909116815260208101949094526001600160a01b03908116941692a3005b635cd5d23360e01b5f5260045ffd5b90506001600160a01b03611fbf612772565b16141582611e7e565b82631be5cb2f60e01b5f5260045260245ffd5b61ffff611fe6612761565b63f9c3ae8f60e01b5f521660045260245ffd5b60203660031901126101e85761200d6124d2565b60016120188261340e565b01612028815460a01c3490612754565b916001600160601b0383116119f35781546001600160a01b031660a084901b6001600160a01b031916179091557f73a678c951c7bef7e80f76f224dcf2a312c2a921280192725c64d950e3a97fc8906020906001600160401b03906040519485521692a2005b346101e85760203660031901126101e8576120e86120aa6124e8565b5f60e06040516120b9816125e4565b8281528260208201528260408201528260608201528260808201528260a0820152606060c0820152015261344d565b80546001820154916003600282019101549060405192612107846125e4565b60018060a01b0381168452602084019460ff8260a01c1686526040850160ff8360a81c16815260608601906001600160601b03831682526001600160601b03608088019360601c16835263ffffffff60a088019460b01c16845260405180955f908054906121748261271c565b808552916001811690811561227d5750600114612240575b505003612199908661261b565b60c0870194855260e0870195865260405197889760208952600160a01b6001900390511660208901525160ff1660408801525160ff166060870152516001600160601b03166080860152516001600160601b031660a08501525163ffffffff1660c0840152519060e083016101009052815180928161012086015260200161014085015e818301610140015f905251610100830152601f1990601f01168101036101400190f35b5f908152602081209092505b81831061226157505081016020018a8061218c565b6020919350806001915483858c0101520191019091879261224c565b9150506020925060ff191682840152151560051b8201018a8061218c565b346101e85760203660031901126101e8576122b46124d2565b6122bd8161340e565b9060018060a01b036001830154163314158061241f575b6124035781549160ff8360c01c16156123e75763ffffffff8360a01c165f526002602052600360405f20019283545f1981019081116102fa576123749161234361199c6001600160401b0361232e63ffffffff958a6126e7565b90549060031b1c1693849360c81c16886126e7565b905582545f91825260036020526040909120805463ffffffff60c81b191663ffffffff60c81b909216919091179055565b82549283156123d3576001600160401b03935f19019061239482826126e7565b8682549160031b1b191690555560ff60c01b198154169055167fe0b2caa057c4351fc7e9c4eb8884840a91d3aab8f90dbf04bf7cb6d3ddb2be425f80a2005b634e487b7160e01b5f52603160045260245ffd5b6001600160401b03826302543aab60e41b5f521660045260245ffd5b6001600160401b0390630aa4fbf160e21b5f521660045260245ffd5b5081546001600160a01b03163314156122d4565b346101e85760203660031901126101e8576004355f52600460205260a060405f2061245d81613317565b9060ff600482549201549181612477818360301c166133de565b16928260405195168552828260381c1615156020860152604085015260401c1660608301526080820152f35b346101e85760206102066124b6366124bc565b90612686565b60409060031901126101e8576004359060243590565b600435906001600160401b03821682036101e857565b6004359063ffffffff821682036101e857565b9181601f840112156101e8578235916001600160401b0383116101e857602083818601950101116101e857565b90602080835192838152019201905f5b8181106125455750505090565b82516001600160401b0316845260209384019390920191600101612538565b9181601f840112156101e8578235916001600160401b0383116101e8576020808501948460051b0101116101e857565b60609060031901126101e857600435906024359060443590565b600435906001600160a01b03821682036101e857565b6004359060ff821682036101e857565b6024359060ff821682036101e857565b61010081019081106001600160401b0382111761071d57604052565b60c081019081106001600160401b0382111761071d57604052565b90601f801991011681019081106001600160401b0382111761071d57604052565b6001600160401b03811161071d5760051b60200190565b90602080835192838152019201905f5b8181106126705750505090565b8251845260209384019390920191600101612663565b6126d7916040519060208201927f8daea4beba736df09c7d887b782e574b518c45f57336b6b8bb3e74b25b4290c6845260408301526060820152606081526126cf60808261261b565b5190206132e4565b90565b919082039182116102fa57565b9190918054831015612708575f52601860205f208360021c019260031b1690565b634e487b7160e01b5f52603260045260245ffd5b90600182811c9216801561274a575b602083101461273657565b634e487b7160e01b5f52602260045260245ffd5b91607f169161272b565b919082018092116102fa57565b60243561ffff811681036101e85790565b6004356001600160a01b03811681036101e85790565b6044356001600160a01b03811681036101e85790565b90604051918281549182825260208201905f5260205f20925f905b806003830110612853576127ef945491818110612839575b81811061281c575b8181106127ff575b106127f1575b50038361261b565b565b60c01c81526020015f6127e7565b9260206001916001600160401b038560801c1681520193016127e1565b9260206001916001600160401b038560401c1681520193016127d9565b9260206001916001600160401b03851681520193016127d1565b916004919350608060019186546001600160401b03811682526001600160401b038160401c1660208301526001600160401b0381841c16604083015260c01c60608201520194019201859293916127b9565b80518210156127085760209160051b010190565b818102929181159184041417156102fa57565b5f5b8281106128da57505050565b5f828201556001016128ce565b906128f18261263c565b6128fe604051918261261b565b828152809261290f601f199161263c565b0190602036910137565b906001600160401b03809116911601906001600160401b0382116102fa57565b90815f52600460205260405f2091825460ff8160201c166005811015611dc45760010361303d576001600160401b039060501c1680431115611d975761298261010091436126da565b11612fda5782549163ffffffff83165f52600260205260405f20926040516001600160401b03602082019260501c16408252836040820152604081526129c960608261261b565b5190209360038401549260ff855460a81c166129e48161263c565b966129f2604051988961261b565b8188526129fe8261263c565b602089019690601f1901368837612a148361263c565b90612a22604051928361261b565b838252601f19612a318561263c565b013660208401375f9281612e57575b50505080885210612e48579293600101925f5b8651811015612aca576001600160601b03855460601c16906001600160401b03612a7d828a6128a5565b51165f526003602052600260405f2001916001600160601b0383541601916001600160601b0383116102fa576001600160601b03600193166001600160601b031982541617905501612a53565b5092509293909360058401908251906001600160401b03821161071d57600160401b821161071d578254828455808310612df9575b50915f5260205f208160021c915f5b838110612db457506003198116900380612d5c575b50505050612b3181516128e7565b600684018151916001600160401b03831161071d57600160401b831161071d578154838355808410612d32575b50602001905f5260205f205f5b838110612d1e5750505050612b8081516128e7565b600784018151916001600160401b03831161071d57600160401b831161071d578154838355808410612cf4575b50602001905f5260205f205f5b838110612ce05750505050612cc97f7bd9d74848d90d72a4b0b2af4dfdc74a32d229110ce467477ac408a2917836869164020000000064ff000000001986541617855563ffffffff612c357f00000000000000000000000000000000000000000000000000000000000000006001600160401b034216612919565b95612ca9612c816001600160401b03600184019916806001600160401b03198b5416178a557f000000000000000000000000000000000000000000000000000000000000000090612919565b885467ffffffffffffffff60401b191660409190911b67ffffffffffffffff60401b16178855565b541694546001600160401b03604051938493606085526060850190612528565b91818116602085015260401c1660408301520390a3565b600190602084519401938184015501612bba565b825f52838060205f20019103905f5b828110612d11575050612bad565b5f82820155600101612d03565b600190602084519401938184015501612b6b565b825f52838060205f20019103905f5b828110612d4f575050612b5e565b5f82820155600101612d41565b925f935f5b818110612d765750505001555f808080612b23565b9091946020612daa6001926001600160401b03895116908560031b6001600160401b03809160031b9316831b921b19161790565b9601929101612d61565b5f5f5b60048110612dcc575083820155600101612b0e565b86519096916001916020916001600160401b0360068b901b81811b199092169216901b1792019601612db7565b612e28906003840160021c855f5260038160205f200192601887831b1680612e2e575b500160021c03906128cc565b5f612aff565b5f198501908154905f1990602003851b1c1690555f612e1c565b91945091506127ef9250613561565b81612e6e919b97949892959b9a969a9993996135d0565b5f608052926040851015612fcc5784608052999896995b5f976001600160601b03600188015460601c169b5b6080518a1080612fc3575b15612fae578c6001600160401b03612ed2612ec98a612ec48f8c612754565b6135d0565b60038c016126e7565b90549060031b1c16805f52600360205260405f20916001600160601b03612f07600185015460a01c82600287015416906131ca565b1610612fa2575f60a081905291546001600160a01b0316918d91905b848110612f71575b5060a051612f645791612f52848093612f58958f612f5e98612f4c916128a5565b526128a5565b52613089565b99613089565b98612e9a565b50505098612f5e90613089565b836001600160a01b03612f8483866128a5565b511614612f96578e9250600101612f23565b50600160a0525f612f2b565b505098612f5e90613089565b945095999450959950955095505f8080612a40565b508b8110612ea5565b604060805299989699612e85565b825467ffffffffffffffff60501b191643605081901b67ffffffffffffffff60501b169190911790935590917f06075dcdfaa464e06672b72a07fe68ebda553d87001b2126d99572b57925cbb2906020906001600160401b0316604051908152a2565b60ff611db185613317565b91908110156127085760051b81013590601e19813603018212156101e85701908135916001600160401b0383116101e85760200182360381136101e8579190565b5f1981146102fa5760010190565b9290916001600160401b03604051936020850195865216604084015260608301526080820152608081526130cc60a08261261b565b51902090565b906126d7926040519160208301937f1b9baacdc9962c0763e8c067785774664476460140a1beb638c3512f22438a5a8552604084015260608301526080820152608081526126cf60a08261261b565b6004356001600160a01b038116908181036101e857506024359061ffff8216918281036101e85750604435916001600160a01b0383168084036101e8576126d793506040519160208301937fe9f7525a6d80b938bf01eb8a5ac7b0c519728d52c84d7513201cc8366f2f6cac855260408401526060830152608082015260643560a082015260a081526126cf60c08261261b565b8054821015612708575f5260205f2001905f90565b906001600160601b03809116911603906001600160601b0382116102fa57565b90604051918281549182825260208201905f5260205f20925f5b8181106132195750506127ef9250038361261b565b8454835260019485019487945060209093019201613204565b908060209392818452848401375f828201840152601f01601f1916010190565b60405160208101907f8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f82527f7b89c62d1fc128f39a8613cd5d15f2a327ef02b57d41607ce401347b259d43ab60408201527fc89efdaa54c0f20c7adf612882df0950f5a951637e0307cdcb4c672f298b8bc660608201524660808201523060a082015260a081526130cc60c08261261b565b6132ec613252565b9060405190602082019261190160f01b845260228301526042820152604281526130cc60628261261b565b805460ff8160201c166005811015611dc45780156133d757600181146133cf57600381146133c7576004146133c057600160058301541b5f1981019081116102fa5760ff16908160ff8260301c16146133b85760281c60ff161415806133a2575b61339c576001015460401c6001600160401b0316421061339757600490565b600390565b50600290565b506001600160401b036001820154164210613378565b505050600490565b5050600690565b505050600590565b505050600190565b5050505f90565b905f915b60ff81166133ed5750565b916133f790613089565b915f1960ff8216019060ff82116102fa57166133e2565b6001600160401b03165f8181526003602052604090208054909291906001600160a01b03161561343b5750565b6303f8b58360e51b5f5260045260245ffd5b63ffffffff1690815f52600260205260405f209160ff835460a81c16156134715750565b636b22f39b60e11b5f5260045260245ffd5b604183036133d757826020116101e857813591836040116101e85760208101359360401015612708576040013560f81c601b8110613541575b60ff1690601b82141580613536575b61352e577f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0841161352e576020935f93608093604051938452868401526040830152606082015282805260015afa15613523575f5190565b6040513d5f823e3d90fd5b505050505f90565b50601c8214156134cb565b601b0160ff8111156134bc57634e487b7160e01b5f52601160045260245ffd5b815464ff000000001916640400000000178255600290910180546135959060a081901c9084906001600160a01b03166139f1565b54907f7ca5472b7ea78c2c0141c5a12ee6d170cf4ce8ed06be3d22c8252ddfc7a6a2c46020604051938060a01c855260018060a01b031693a3565b81156135da570690565b634e487b7160e01b5f52601260045260245ffd5b91825f52600460205260405f2091600260ff61360985613317565b16036137a0576136199083613de1565b9190156137975782548060281c6001841b9060ff8282161661378b5760ff8065ff0000000000931691161760281b169065ff000000000019161783558061367c61366684600687016131b5565b819391549060031b91821b915f19901b19161790565b9055837f1e310754322a3d16b86a50a90c7febb812c99b3b1c66bafa0ac14bb8149796ac60206001600160401b036136b86005880196876126e7565b90549060031b1c1693604051908152a3600160ff835460281c1691541b5f1981019081116102fa5760ff16146136ef575b50505f90565b602060016137747f5e25149a7ac62ecd606a71fb87c3d17baeda9483315c27f59b003d37b87cbf749361374b7f00000000000000000000000000000000000000000000000000000000000000006001600160401b034216612919565b9201805467ffffffffffffffff60401b1916604084901b67ffffffffffffffff60401b16179055565b6001600160401b0360405191168152a25f806136e9565b50505050505050600490565b50505050600390565b50505050600290565b835160ff909216949392918581116139da57508251156139cc5760ff166001036139ba575f905f9083516137dc8161263c565b6137e9604051918261261b565b818152601f196137f88361263c565b013660208301375f5b82811061391c57505f198201908282116102fa576138259160019493941c906128a5565b51945f9163ffffffff16905f198288099187029182808210910303925b84811061387f5750505050509091935b60ff8316906002821015918261386757505092565b90915060ff8416036102fa576101fe8360011b161192565b61388981836128a5565b51888082111561390d5761389c916126da565b6127105f19818309910290818082109103039084868084109384156138ed575b505050506138cd575b600101613842565b949560ff1660ff81146102fa5760019081019690861b60ff1617946138c5565b1492509082613902575b50505f8486826138bc565b11159050835f6138f7565b90613917916126da565b61389c565b97929461392f89889398999496996128a5565b5197895b801580158061399c575b1561397d575f198201918083116102fa5761396361395b848d6128a5565b51918c6128a5565b521561393357634e487b7160e01b5f52601160045260245ffd5b509861399560019398969b9297959a999499856128a5565b5201613801565b505f1982018281116102fa576139b38c918c6128a5565b511161393d565b506139c490613e4c565b909193613852565b505f93508392839250829150565b859063b8b3d82360e01b5f5260045260245260445ffd5b60405f516020613f505f395f51905f529193929360018060a01b031692835f526005602052815f20613a24828254612754565b9055815190815260056020820152a3565b60405f516020613f505f395f51905f529193929360018060a01b031692835f526005602052815f20613a68828254612754565b9055815190815260066020820152a3565b81156135da570490565b9060ff16600281108015613b10575b613afe575060ff1660018103613ad8575063ffffffff16600181108015613acd575b613abb5750565b63345fc14360e21b5f5260045260245ffd5b506107d08111613ab4565b80613aec575063ffffffff1680613abb5750565b63dfc0338760e01b5f5260045260245ffd5b6387dba99160e01b5f5260045260245ffd5b5060058111613a92565b9493927f6913066ccfdbe2358fcc9f0a40f7f6b00cb85a13be351481a304f28079ff1dab90929192613b4d600154613089565b60018190555f818152600460205260409020805467ffffffffffffffff60501b1964ffffffffff1990911663ffffffff909a16998a1764010000000017164360501b67ffffffffffffffff60501b16178155909794889491829160039190613be990825467ffffffffffffffff60901b19164260901b67ffffffffffffffff60901b1617835560a01b6001600160a01b03191633176002830155565b0155613c0960405192839283526040602084015233976040840191613232565b0390a4565b919290825f52600460205260405f2090600360ff613c2b84613317565b1603613d5557613c3b9082613de1565b9015613d4b576001811b82549160ff828460281c161615613d3f578260301c9460ff83871616613d3257613c8e6005860191896001600160401b03613c8086866126e7565b90549060031b1c168a613097565b613c9b83600688016131b5565b90549060031b1c03613d255787613d0a6136668460076020996001600160401b039966ff0000000000007f8337c67054fe58f7741d56f2077e855df159053792ff23869c18e8c60bbe158e9d60ff80613d119d1691161760301b169066ff0000000000001916178155016131b5565b90556126e7565b90549060031b1c1693604051908152a35f90565b5050505050505050600690565b5050505050505050600490565b50505050505050600590565b5050505050600390565b5050505050600290565b9060ff16918215613ddc575060028214613dc7575060038114613db85760048114613da957600514613d9a57635054097b60e01b5f5260045ffd5b63205e472d60e21b5f5260045ffd5b630bdb902160e41b5f5260045ffd5b6361ee4f6b60e11b5f5260045ffd5b5f52600460205260ff611db160405f20613317565b915050565b600501805492916001600160a01b0316905f5b848110613e065750505090505f905f90565b6001600160401b03613e1882846126e7565b90549060031b1c165f5260036020528260018060a01b0360405f20541614613e4257600101613df4565b9350505060019190565b8051915f5f935f5f5b828110613eaf5750613ea2575f935f5b828110613e785750505060ff9093169190565b83613e8382846128a5565b5114613e92575b600101613e65565b6001811b60ff1690951794613e8a565b50509150505f905f905f90565b925f96915f5b848110613f17575082881115613ee057505050613ed282856128a5565b51915f906001905b01613e55565b9180979491941480613f03575b613efa575b600190613eda565b60019150613ef2565b5083613f0f82886128a5565b511415613eed565b613f2181896128a5565b51613f2c878a6128a5565b5114613f3b575b600101613eb5565b97613f47600191613089565b989050613f3356feb34f70d75ac7516e591c1b4b53b55802ccd231bc0c8af2449550fef2f506ae36a26469706673582212204de112753dbd7d84cbfa671405fe607d90482c94d6a4f4bfacde6641b256c69564736f6c63430008250033",
}

// AgentRig is an auto generated Go binding around an Ethereum contract.
type AgentRig struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *AgentRig) GetABI() abi.ABI {
	return c.abi
}

// NewAgentRig creates a new instance of AgentRig.
func NewAgentRig() *AgentRig {
	parsed, err := AgentRigMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &AgentRig{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *AgentRig) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(uint64 commitWindow_, uint64 revealWindow_) returns()
func (agentRig *AgentRig) PackConstructor(commitWindow_ uint64, revealWindow_ uint64) []byte {
	enc, err := agentRig.abi.Pack("", commitWindow_, revealWindow_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackAddStake is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x224de6d5.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function addStake(uint64 rigId) payable returns()
func (agentRig *AgentRig) PackAddStake(rigId uint64) []byte {
	enc, err := agentRig.abi.Pack("addStake", rigId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAddStake is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x224de6d5.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function addStake(uint64 rigId) payable returns()
func (agentRig *AgentRig) TryPackAddStake(rigId uint64) ([]byte, error) {
	return agentRig.abi.Pack("addStake", rigId)
}

// PackAgreement is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa1c4b87c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function agreement(uint8 kind, uint8 quorum, uint32 toleranceBps, bytes32[] answers) pure returns(bytes32 answer, bool agreed, uint8 agree, uint8 verdicts)
func (agentRig *AgentRig) PackAgreement(kind uint8, quorum uint8, toleranceBps uint32, answers [][32]byte) []byte {
	enc, err := agentRig.abi.Pack("agreement", kind, quorum, toleranceBps, answers)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAgreement is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa1c4b87c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function agreement(uint8 kind, uint8 quorum, uint32 toleranceBps, bytes32[] answers) pure returns(bytes32 answer, bool agreed, uint8 agree, uint8 verdicts)
func (agentRig *AgentRig) TryPackAgreement(kind uint8, quorum uint8, toleranceBps uint32, answers [][32]byte) ([]byte, error) {
	return agentRig.abi.Pack("agreement", kind, quorum, toleranceBps, answers)
}

// AgreementOutput serves as a container for the return parameters of contract
// method Agreement.
type AgreementOutput struct {
	Answer   [32]byte
	Agreed   bool
	Agree    uint8
	Verdicts uint8
}

// UnpackAgreement is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa1c4b87c.
//
// Solidity: function agreement(uint8 kind, uint8 quorum, uint32 toleranceBps, bytes32[] answers) pure returns(bytes32 answer, bool agreed, uint8 agree, uint8 verdicts)
func (agentRig *AgentRig) UnpackAgreement(data []byte) (AgreementOutput, error) {
	out, err := agentRig.abi.Unpack("agreement", data)
	outstruct := new(AgreementOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Answer = *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	outstruct.Agreed = *abi.ConvertType(out[1], new(bool)).(*bool)
	outstruct.Agree = *abi.ConvertType(out[2], new(uint8)).(*uint8)
	outstruct.Verdicts = *abi.ConvertType(out[3], new(uint8)).(*uint8)
	return *outstruct, nil
}

// PackAnswerOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x11d6434a.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function answerOf(uint256 taskId) view returns(uint8 status, bool agreed, bytes32 answer, uint8 agree, uint8 reveals)
func (agentRig *AgentRig) PackAnswerOf(taskId *big.Int) []byte {
	enc, err := agentRig.abi.Pack("answerOf", taskId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAnswerOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x11d6434a.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function answerOf(uint256 taskId) view returns(uint8 status, bool agreed, bytes32 answer, uint8 agree, uint8 reveals)
func (agentRig *AgentRig) TryPackAnswerOf(taskId *big.Int) ([]byte, error) {
	return agentRig.abi.Pack("answerOf", taskId)
}

// AnswerOfOutput serves as a container for the return parameters of contract
// method AnswerOf.
type AnswerOfOutput struct {
	Status  uint8
	Agreed  bool
	Answer  [32]byte
	Agree   uint8
	Reveals uint8
}

// UnpackAnswerOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x11d6434a.
//
// Solidity: function answerOf(uint256 taskId) view returns(uint8 status, bool agreed, bytes32 answer, uint8 agree, uint8 reveals)
func (agentRig *AgentRig) UnpackAnswerOf(data []byte) (AnswerOfOutput, error) {
	out, err := agentRig.abi.Unpack("answerOf", data)
	outstruct := new(AnswerOfOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Status = *abi.ConvertType(out[0], new(uint8)).(*uint8)
	outstruct.Agreed = *abi.ConvertType(out[1], new(bool)).(*bool)
	outstruct.Answer = *abi.ConvertType(out[2], new([32]byte)).(*[32]byte)
	outstruct.Agree = *abi.ConvertType(out[3], new(uint8)).(*uint8)
	outstruct.Reveals = *abi.ConvertType(out[4], new(uint8)).(*uint8)
	return *outstruct, nil
}

// PackCommit is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf2f03877.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function commit(uint256 taskId, bytes32 commitment) returns()
func (agentRig *AgentRig) PackCommit(taskId *big.Int, commitment [32]byte) []byte {
	enc, err := agentRig.abi.Pack("commit", taskId, commitment)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCommit is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf2f03877.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function commit(uint256 taskId, bytes32 commitment) returns()
func (agentRig *AgentRig) TryPackCommit(taskId *big.Int, commitment [32]byte) ([]byte, error) {
	return agentRig.abi.Pack("commit", taskId, commitment)
}

// PackCommitDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0516b222.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function commitDigest(uint256 taskId, bytes32 commitment) view returns(bytes32)
func (agentRig *AgentRig) PackCommitDigest(taskId *big.Int, commitment [32]byte) []byte {
	enc, err := agentRig.abi.Pack("commitDigest", taskId, commitment)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCommitDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0516b222.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function commitDigest(uint256 taskId, bytes32 commitment) view returns(bytes32)
func (agentRig *AgentRig) TryPackCommitDigest(taskId *big.Int, commitment [32]byte) ([]byte, error) {
	return agentRig.abi.Pack("commitDigest", taskId, commitment)
}

// UnpackCommitDigest is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x0516b222.
//
// Solidity: function commitDigest(uint256 taskId, bytes32 commitment) view returns(bytes32)
func (agentRig *AgentRig) UnpackCommitDigest(data []byte) ([32]byte, error) {
	out, err := agentRig.abi.Unpack("commitDigest", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackCommitMany is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3d8e9c50.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function commitMany((uint256,bytes32)[] entries, bytes[] signatures) returns(uint256 applied)
func (agentRig *AgentRig) PackCommitMany(entries []AgentRigCommit, signatures [][]byte) []byte {
	enc, err := agentRig.abi.Pack("commitMany", entries, signatures)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCommitMany is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3d8e9c50.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function commitMany((uint256,bytes32)[] entries, bytes[] signatures) returns(uint256 applied)
func (agentRig *AgentRig) TryPackCommitMany(entries []AgentRigCommit, signatures [][]byte) ([]byte, error) {
	return agentRig.abi.Pack("commitMany", entries, signatures)
}

// UnpackCommitMany is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x3d8e9c50.
//
// Solidity: function commitMany((uint256,bytes32)[] entries, bytes[] signatures) returns(uint256 applied)
func (agentRig *AgentRig) UnpackCommitMany(data []byte) (*big.Int, error) {
	out, err := agentRig.abi.Unpack("commitMany", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackCommitWindow is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x40699005.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function commitWindow() view returns(uint64)
func (agentRig *AgentRig) PackCommitWindow() []byte {
	enc, err := agentRig.abi.Pack("commitWindow")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCommitWindow is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x40699005.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function commitWindow() view returns(uint64)
func (agentRig *AgentRig) TryPackCommitWindow() ([]byte, error) {
	return agentRig.abi.Pack("commitWindow")
}

// UnpackCommitWindow is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x40699005.
//
// Solidity: function commitWindow() view returns(uint64)
func (agentRig *AgentRig) UnpackCommitWindow(data []byte) (uint64, error) {
	out, err := agentRig.abi.Unpack("commitWindow", data)
	if err != nil {
		return *new(uint64), err
	}
	out0 := *abi.ConvertType(out[0], new(uint64)).(*uint64)
	return out0, nil
}

// PackCommitmentHash is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42bfaa70.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function commitmentHash(uint256 taskId, uint64 rigId, bytes32 answer, bytes32 salt) pure returns(bytes32)
func (agentRig *AgentRig) PackCommitmentHash(taskId *big.Int, rigId uint64, answer [32]byte, salt [32]byte) []byte {
	enc, err := agentRig.abi.Pack("commitmentHash", taskId, rigId, answer, salt)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCommitmentHash is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42bfaa70.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function commitmentHash(uint256 taskId, uint64 rigId, bytes32 answer, bytes32 salt) pure returns(bytes32)
func (agentRig *AgentRig) TryPackCommitmentHash(taskId *big.Int, rigId uint64, answer [32]byte, salt [32]byte) ([]byte, error) {
	return agentRig.abi.Pack("commitmentHash", taskId, rigId, answer, salt)
}

// UnpackCommitmentHash is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x42bfaa70.
//
// Solidity: function commitmentHash(uint256 taskId, uint64 rigId, bytes32 answer, bytes32 salt) pure returns(bytes32)
func (agentRig *AgentRig) UnpackCommitmentHash(data []byte) ([32]byte, error) {
	out, err := agentRig.abi.Unpack("commitmentHash", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackCredits is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfe5ff468.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function credits(address ) view returns(uint256)
func (agentRig *AgentRig) PackCredits(arg0 common.Address) []byte {
	enc, err := agentRig.abi.Pack("credits", arg0)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCredits is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfe5ff468.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function credits(address ) view returns(uint256)
func (agentRig *AgentRig) TryPackCredits(arg0 common.Address) ([]byte, error) {
	return agentRig.abi.Pack("credits", arg0)
}

// UnpackCredits is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xfe5ff468.
//
// Solidity: function credits(address ) view returns(uint256)
func (agentRig *AgentRig) UnpackCredits(data []byte) (*big.Int, error) {
	out, err := agentRig.abi.Unpack("credits", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackDeactivateRig is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x18bbf7d6.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function deactivateRig(uint64 rigId) returns()
func (agentRig *AgentRig) PackDeactivateRig(rigId uint64) []byte {
	enc, err := agentRig.abi.Pack("deactivateRig", rigId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDeactivateRig is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x18bbf7d6.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function deactivateRig(uint64 rigId) returns()
func (agentRig *AgentRig) TryPackDeactivateRig(rigId uint64) ([]byte, error) {
	return agentRig.abi.Pack("deactivateRig", rigId)
}

// PackDomainSeparator is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf698da25.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (agentRig *AgentRig) PackDomainSeparator() []byte {
	enc, err := agentRig.abi.Pack("domainSeparator")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDomainSeparator is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xf698da25.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (agentRig *AgentRig) TryPackDomainSeparator() ([]byte, error) {
	return agentRig.abi.Pack("domainSeparator")
}

// UnpackDomainSeparator is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xf698da25.
//
// Solidity: function domainSeparator() view returns(bytes32)
func (agentRig *AgentRig) UnpackDomainSeparator(data []byte) ([32]byte, error) {
	out, err := agentRig.abi.Unpack("domainSeparator", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackDraw is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3b304147.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function draw(uint256 taskId) returns()
func (agentRig *AgentRig) PackDraw(taskId *big.Int) []byte {
	enc, err := agentRig.abi.Pack("draw", taskId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDraw is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3b304147.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function draw(uint256 taskId) returns()
func (agentRig *AgentRig) TryPackDraw(taskId *big.Int) ([]byte, error) {
	return agentRig.abi.Pack("draw", taskId)
}

// PackJobCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4c5d8a0f.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function jobCount() view returns(uint32)
func (agentRig *AgentRig) PackJobCount() []byte {
	enc, err := agentRig.abi.Pack("jobCount")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackJobCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x4c5d8a0f.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function jobCount() view returns(uint32)
func (agentRig *AgentRig) TryPackJobCount() ([]byte, error) {
	return agentRig.abi.Pack("jobCount")
}

// UnpackJobCount is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x4c5d8a0f.
//
// Solidity: function jobCount() view returns(uint32)
func (agentRig *AgentRig) UnpackJobCount(data []byte) (uint32, error) {
	out, err := agentRig.abi.Unpack("jobCount", data)
	if err != nil {
		return *new(uint32), err
	}
	out0 := *abi.ConvertType(out[0], new(uint32)).(*uint32)
	return out0, nil
}

// PackJobOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1f5a8d0c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function jobOf(uint32 jobId) view returns((address,uint8,uint8,uint96,uint96,uint32,string,uint256))
func (agentRig *AgentRig) PackJobOf(jobId uint32) []byte {
	enc, err := agentRig.abi.Pack("jobOf", jobId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackJobOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1f5a8d0c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function jobOf(uint32 jobId) view returns((address,uint8,uint8,uint96,uint96,uint32,string,uint256))
func (agentRig *AgentRig) TryPackJobOf(jobId uint32) ([]byte, error) {
	return agentRig.abi.Pack("jobOf", jobId)
}

// UnpackJobOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x1f5a8d0c.
//
// Solidity: function jobOf(uint32 jobId) view returns((address,uint8,uint8,uint96,uint96,uint32,string,uint256))
func (agentRig *AgentRig) UnpackJobOf(data []byte) (AgentRigJobInfo, error) {
	out, err := agentRig.abi.Unpack("jobOf", data)
	if err != nil {
		return *new(AgentRigJobInfo), err
	}
	out0 := *abi.ConvertType(out[0], new(AgentRigJobInfo)).(*AgentRigJobInfo)
	return out0, nil
}

// PackJobRigs is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3574223c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function jobRigs(uint32 jobId) view returns(uint64[])
func (agentRig *AgentRig) PackJobRigs(jobId uint32) []byte {
	enc, err := agentRig.abi.Pack("jobRigs", jobId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackJobRigs is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3574223c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function jobRigs(uint32 jobId) view returns(uint64[])
func (agentRig *AgentRig) TryPackJobRigs(jobId uint32) ([]byte, error) {
	return agentRig.abi.Pack("jobRigs", jobId)
}

// UnpackJobRigs is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x3574223c.
//
// Solidity: function jobRigs(uint32 jobId) view returns(uint64[])
func (agentRig *AgentRig) UnpackJobRigs(data []byte) ([]uint64, error) {
	out, err := agentRig.abi.Unpack("jobRigs", data)
	if err != nil {
		return *new([]uint64), err
	}
	out0 := *abi.ConvertType(out[0], new([]uint64)).(*[]uint64)
	return out0, nil
}

// PackOperatorFeeDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6df91a3c.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function operatorFeeDigest((address,uint16,address,uint256) fee) view returns(bytes32)
func (agentRig *AgentRig) PackOperatorFeeDigest(fee AgentRigOperatorFee) []byte {
	enc, err := agentRig.abi.Pack("operatorFeeDigest", fee)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackOperatorFeeDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6df91a3c.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function operatorFeeDigest((address,uint16,address,uint256) fee) view returns(bytes32)
func (agentRig *AgentRig) TryPackOperatorFeeDigest(fee AgentRigOperatorFee) ([]byte, error) {
	return agentRig.abi.Pack("operatorFeeDigest", fee)
}

// UnpackOperatorFeeDigest is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x6df91a3c.
//
// Solidity: function operatorFeeDigest((address,uint16,address,uint256) fee) view returns(bytes32)
func (agentRig *AgentRig) UnpackOperatorFeeDigest(data []byte) ([32]byte, error) {
	out, err := agentRig.abi.Unpack("operatorFeeDigest", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackOperatorFees is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcb9dad1e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function operatorFees(address ) view returns(address operator, uint16 bps, address payee, uint256 nonce)
func (agentRig *AgentRig) PackOperatorFees(arg0 common.Address) []byte {
	enc, err := agentRig.abi.Pack("operatorFees", arg0)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackOperatorFees is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xcb9dad1e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function operatorFees(address ) view returns(address operator, uint16 bps, address payee, uint256 nonce)
func (agentRig *AgentRig) TryPackOperatorFees(arg0 common.Address) ([]byte, error) {
	return agentRig.abi.Pack("operatorFees", arg0)
}

// OperatorFeesOutput serves as a container for the return parameters of contract
// method OperatorFees.
type OperatorFeesOutput struct {
	Operator common.Address
	Bps      uint16
	Payee    common.Address
	Nonce    *big.Int
}

// UnpackOperatorFees is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xcb9dad1e.
//
// Solidity: function operatorFees(address ) view returns(address operator, uint16 bps, address payee, uint256 nonce)
func (agentRig *AgentRig) UnpackOperatorFees(data []byte) (OperatorFeesOutput, error) {
	out, err := agentRig.abi.Unpack("operatorFees", data)
	outstruct := new(OperatorFeesOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Operator = *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	outstruct.Bps = *abi.ConvertType(out[1], new(uint16)).(*uint16)
	outstruct.Payee = *abi.ConvertType(out[2], new(common.Address)).(*common.Address)
	outstruct.Nonce = abi.ConvertType(out[3], new(big.Int)).(*big.Int)
	return *outstruct, nil
}

// PackOrder is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe68ed0cc.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function order(uint32 jobId, bytes32 inputHash, string inputURI) payable returns(uint256 taskId)
func (agentRig *AgentRig) PackOrder(jobId uint32, inputHash [32]byte, inputURI string) []byte {
	enc, err := agentRig.abi.Pack("order", jobId, inputHash, inputURI)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackOrder is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe68ed0cc.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function order(uint32 jobId, bytes32 inputHash, string inputURI) payable returns(uint256 taskId)
func (agentRig *AgentRig) TryPackOrder(jobId uint32, inputHash [32]byte, inputURI string) ([]byte, error) {
	return agentRig.abi.Pack("order", jobId, inputHash, inputURI)
}

// UnpackOrder is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe68ed0cc.
//
// Solidity: function order(uint32 jobId, bytes32 inputHash, string inputURI) payable returns(uint256 taskId)
func (agentRig *AgentRig) UnpackOrder(data []byte) (*big.Int, error) {
	out, err := agentRig.abi.Unpack("order", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackOrderMany is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xab960d57.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function orderMany(uint32 jobId, bytes32[] inputHashes, string[] inputURIs) payable returns(uint256 firstTaskId)
func (agentRig *AgentRig) PackOrderMany(jobId uint32, inputHashes [][32]byte, inputURIs []string) []byte {
	enc, err := agentRig.abi.Pack("orderMany", jobId, inputHashes, inputURIs)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackOrderMany is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xab960d57.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function orderMany(uint32 jobId, bytes32[] inputHashes, string[] inputURIs) payable returns(uint256 firstTaskId)
func (agentRig *AgentRig) TryPackOrderMany(jobId uint32, inputHashes [][32]byte, inputURIs []string) ([]byte, error) {
	return agentRig.abi.Pack("orderMany", jobId, inputHashes, inputURIs)
}

// UnpackOrderMany is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xab960d57.
//
// Solidity: function orderMany(uint32 jobId, bytes32[] inputHashes, string[] inputURIs) payable returns(uint256 firstTaskId)
func (agentRig *AgentRig) UnpackOrderMany(data []byte) (*big.Int, error) {
	out, err := agentRig.abi.Unpack("orderMany", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackPhaseOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9a243ebf.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function phaseOf(uint256 taskId) view returns(uint8)
func (agentRig *AgentRig) PackPhaseOf(taskId *big.Int) []byte {
	enc, err := agentRig.abi.Pack("phaseOf", taskId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPhaseOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x9a243ebf.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function phaseOf(uint256 taskId) view returns(uint8)
func (agentRig *AgentRig) TryPackPhaseOf(taskId *big.Int) ([]byte, error) {
	return agentRig.abi.Pack("phaseOf", taskId)
}

// UnpackPhaseOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x9a243ebf.
//
// Solidity: function phaseOf(uint256 taskId) view returns(uint8)
func (agentRig *AgentRig) UnpackPhaseOf(data []byte) (uint8, error) {
	out, err := agentRig.abi.Unpack("phaseOf", data)
	if err != nil {
		return *new(uint8), err
	}
	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)
	return out0, nil
}

// PackPublishJob is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd983b463.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function publishJob(uint8 kind, uint8 quorum, uint96 price, uint96 slash, uint32 toleranceBps, string specURI) returns(uint32 jobId)
func (agentRig *AgentRig) PackPublishJob(kind uint8, quorum uint8, price *big.Int, slash *big.Int, toleranceBps uint32, specURI string) []byte {
	enc, err := agentRig.abi.Pack("publishJob", kind, quorum, price, slash, toleranceBps, specURI)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackPublishJob is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd983b463.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function publishJob(uint8 kind, uint8 quorum, uint96 price, uint96 slash, uint32 toleranceBps, string specURI) returns(uint32 jobId)
func (agentRig *AgentRig) TryPackPublishJob(kind uint8, quorum uint8, price *big.Int, slash *big.Int, toleranceBps uint32, specURI string) ([]byte, error) {
	return agentRig.abi.Pack("publishJob", kind, quorum, price, slash, toleranceBps, specURI)
}

// UnpackPublishJob is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xd983b463.
//
// Solidity: function publishJob(uint8 kind, uint8 quorum, uint96 price, uint96 slash, uint32 toleranceBps, string specURI) returns(uint32 jobId)
func (agentRig *AgentRig) UnpackPublishJob(data []byte) (uint32, error) {
	out, err := agentRig.abi.Unpack("publishJob", data)
	if err != nil {
		return *new(uint32), err
	}
	out0 := *abi.ConvertType(out[0], new(uint32)).(*uint32)
	return out0, nil
}

// PackRefund is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x278ecde1.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function refund(uint256 taskId) returns()
func (agentRig *AgentRig) PackRefund(taskId *big.Int) []byte {
	enc, err := agentRig.abi.Pack("refund", taskId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRefund is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x278ecde1.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function refund(uint256 taskId) returns()
func (agentRig *AgentRig) TryPackRefund(taskId *big.Int) ([]byte, error) {
	return agentRig.abi.Pack("refund", taskId)
}

// PackRegisterRig is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x56ae9833.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function registerRig(uint32 jobId, address operator) payable returns(uint64 rigId)
func (agentRig *AgentRig) PackRegisterRig(jobId uint32, operator common.Address) []byte {
	enc, err := agentRig.abi.Pack("registerRig", jobId, operator)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRegisterRig is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x56ae9833.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function registerRig(uint32 jobId, address operator) payable returns(uint64 rigId)
func (agentRig *AgentRig) TryPackRegisterRig(jobId uint32, operator common.Address) ([]byte, error) {
	return agentRig.abi.Pack("registerRig", jobId, operator)
}

// UnpackRegisterRig is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x56ae9833.
//
// Solidity: function registerRig(uint32 jobId, address operator) payable returns(uint64 rigId)
func (agentRig *AgentRig) UnpackRegisterRig(data []byte) (uint64, error) {
	out, err := agentRig.abi.Unpack("registerRig", data)
	if err != nil {
		return *new(uint64), err
	}
	out0 := *abi.ConvertType(out[0], new(uint64)).(*uint64)
	return out0, nil
}

// PackReveal is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xaf697a6f.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function reveal(uint256 taskId, bytes32 answer, bytes32 salt) returns()
func (agentRig *AgentRig) PackReveal(taskId *big.Int, answer [32]byte, salt [32]byte) []byte {
	enc, err := agentRig.abi.Pack("reveal", taskId, answer, salt)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackReveal is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xaf697a6f.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function reveal(uint256 taskId, bytes32 answer, bytes32 salt) returns()
func (agentRig *AgentRig) TryPackReveal(taskId *big.Int, answer [32]byte, salt [32]byte) ([]byte, error) {
	return agentRig.abi.Pack("reveal", taskId, answer, salt)
}

// PackRevealDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x48d6d68e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function revealDigest(uint256 taskId, bytes32 answer, bytes32 salt) view returns(bytes32)
func (agentRig *AgentRig) PackRevealDigest(taskId *big.Int, answer [32]byte, salt [32]byte) []byte {
	enc, err := agentRig.abi.Pack("revealDigest", taskId, answer, salt)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRevealDigest is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x48d6d68e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function revealDigest(uint256 taskId, bytes32 answer, bytes32 salt) view returns(bytes32)
func (agentRig *AgentRig) TryPackRevealDigest(taskId *big.Int, answer [32]byte, salt [32]byte) ([]byte, error) {
	return agentRig.abi.Pack("revealDigest", taskId, answer, salt)
}

// UnpackRevealDigest is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x48d6d68e.
//
// Solidity: function revealDigest(uint256 taskId, bytes32 answer, bytes32 salt) view returns(bytes32)
func (agentRig *AgentRig) UnpackRevealDigest(data []byte) ([32]byte, error) {
	out, err := agentRig.abi.Unpack("revealDigest", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackRevealMany is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb79d3fdc.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function revealMany((uint256,bytes32,bytes32)[] entries, bytes[] signatures) returns(uint256 applied)
func (agentRig *AgentRig) PackRevealMany(entries []AgentRigReveal, signatures [][]byte) []byte {
	enc, err := agentRig.abi.Pack("revealMany", entries, signatures)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRevealMany is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb79d3fdc.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function revealMany((uint256,bytes32,bytes32)[] entries, bytes[] signatures) returns(uint256 applied)
func (agentRig *AgentRig) TryPackRevealMany(entries []AgentRigReveal, signatures [][]byte) ([]byte, error) {
	return agentRig.abi.Pack("revealMany", entries, signatures)
}

// UnpackRevealMany is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xb79d3fdc.
//
// Solidity: function revealMany((uint256,bytes32,bytes32)[] entries, bytes[] signatures) returns(uint256 applied)
func (agentRig *AgentRig) UnpackRevealMany(data []byte) (*big.Int, error) {
	out, err := agentRig.abi.Unpack("revealMany", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackRevealWindow is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x863d22c7.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function revealWindow() view returns(uint64)
func (agentRig *AgentRig) PackRevealWindow() []byte {
	enc, err := agentRig.abi.Pack("revealWindow")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRevealWindow is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x863d22c7.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function revealWindow() view returns(uint64)
func (agentRig *AgentRig) TryPackRevealWindow() ([]byte, error) {
	return agentRig.abi.Pack("revealWindow")
}

// UnpackRevealWindow is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x863d22c7.
//
// Solidity: function revealWindow() view returns(uint64)
func (agentRig *AgentRig) UnpackRevealWindow(data []byte) (uint64, error) {
	out, err := agentRig.abi.Unpack("revealWindow", data)
	if err != nil {
		return *new(uint64), err
	}
	out0 := *abi.ConvertType(out[0], new(uint64)).(*uint64)
	return out0, nil
}

// PackRigCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x85b77f70.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function rigCount() view returns(uint64)
func (agentRig *AgentRig) PackRigCount() []byte {
	enc, err := agentRig.abi.Pack("rigCount")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRigCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x85b77f70.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function rigCount() view returns(uint64)
func (agentRig *AgentRig) TryPackRigCount() ([]byte, error) {
	return agentRig.abi.Pack("rigCount")
}

// UnpackRigCount is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x85b77f70.
//
// Solidity: function rigCount() view returns(uint64)
func (agentRig *AgentRig) UnpackRigCount(data []byte) (uint64, error) {
	out, err := agentRig.abi.Unpack("rigCount", data)
	if err != nil {
		return *new(uint64), err
	}
	out0 := *abi.ConvertType(out[0], new(uint64)).(*uint64)
	return out0, nil
}

// PackRigOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdc53042b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function rigOf(uint64 rigId) view returns((address,address,uint32,bool,uint96,uint96))
func (agentRig *AgentRig) PackRigOf(rigId uint64) []byte {
	enc, err := agentRig.abi.Pack("rigOf", rigId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackRigOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdc53042b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function rigOf(uint64 rigId) view returns((address,address,uint32,bool,uint96,uint96))
func (agentRig *AgentRig) TryPackRigOf(rigId uint64) ([]byte, error) {
	return agentRig.abi.Pack("rigOf", rigId)
}

// UnpackRigOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xdc53042b.
//
// Solidity: function rigOf(uint64 rigId) view returns((address,address,uint32,bool,uint96,uint96))
func (agentRig *AgentRig) UnpackRigOf(data []byte) (AgentRigRigInfo, error) {
	out, err := agentRig.abi.Unpack("rigOf", data)
	if err != nil {
		return *new(AgentRigRigInfo), err
	}
	out0 := *abi.ConvertType(out[0], new(AgentRigRigInfo)).(*AgentRigRigInfo)
	return out0, nil
}

// PackSetOperatorFee is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x25fad1b8.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function setOperatorFee((address,uint16,address,uint256) fee, bytes signature) returns()
func (agentRig *AgentRig) PackSetOperatorFee(fee AgentRigOperatorFee, signature []byte) []byte {
	enc, err := agentRig.abi.Pack("setOperatorFee", fee, signature)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSetOperatorFee is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x25fad1b8.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function setOperatorFee((address,uint16,address,uint256) fee, bytes signature) returns()
func (agentRig *AgentRig) TryPackSetOperatorFee(fee AgentRigOperatorFee, signature []byte) ([]byte, error) {
	return agentRig.abi.Pack("setOperatorFee", fee, signature)
}

// PackSettle is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8df82800.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function settle(uint256 taskId) returns()
func (agentRig *AgentRig) PackSettle(taskId *big.Int) []byte {
	enc, err := agentRig.abi.Pack("settle", taskId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSettle is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x8df82800.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function settle(uint256 taskId) returns()
func (agentRig *AgentRig) TryPackSettle(taskId *big.Int) ([]byte, error) {
	return agentRig.abi.Pack("settle", taskId)
}

// PackTaskCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb6cb58a5.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function taskCount() view returns(uint256)
func (agentRig *AgentRig) PackTaskCount() []byte {
	enc, err := agentRig.abi.Pack("taskCount")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTaskCount is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb6cb58a5.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function taskCount() view returns(uint256)
func (agentRig *AgentRig) TryPackTaskCount() ([]byte, error) {
	return agentRig.abi.Pack("taskCount")
}

// UnpackTaskCount is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xb6cb58a5.
//
// Solidity: function taskCount() view returns(uint256)
func (agentRig *AgentRig) UnpackTaskCount(data []byte) (*big.Int, error) {
	out, err := agentRig.abi.Unpack("taskCount", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackTaskOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd5b36e24.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function taskOf(uint256 taskId) view returns((uint32,uint8,address,uint96,bytes32,uint64,uint64,uint64,uint64,uint64[],uint8,uint8,bytes32[],bytes32[],bool,bytes32,uint8) info)
func (agentRig *AgentRig) PackTaskOf(taskId *big.Int) []byte {
	enc, err := agentRig.abi.Pack("taskOf", taskId)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTaskOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd5b36e24.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function taskOf(uint256 taskId) view returns((uint32,uint8,address,uint96,bytes32,uint64,uint64,uint64,uint64,uint64[],uint8,uint8,bytes32[],bytes32[],bool,bytes32,uint8) info)
func (agentRig *AgentRig) TryPackTaskOf(taskId *big.Int) ([]byte, error) {
	return agentRig.abi.Pack("taskOf", taskId)
}

// UnpackTaskOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xd5b36e24.
//
// Solidity: function taskOf(uint256 taskId) view returns((uint32,uint8,address,uint96,bytes32,uint64,uint64,uint64,uint64,uint64[],uint8,uint8,bytes32[],bytes32[],bool,bytes32,uint8) info)
func (agentRig *AgentRig) UnpackTaskOf(data []byte) (AgentRigTaskInfo, error) {
	out, err := agentRig.abi.Unpack("taskOf", data)
	if err != nil {
		return *new(AgentRigTaskInfo), err
	}
	out0 := *abi.ConvertType(out[0], new(AgentRigTaskInfo)).(*AgentRigTaskInfo)
	return out0, nil
}

// PackTreasury is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x61d027b3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function treasury() view returns(address)
func (agentRig *AgentRig) PackTreasury() []byte {
	enc, err := agentRig.abi.Pack("treasury")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTreasury is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x61d027b3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function treasury() view returns(address)
func (agentRig *AgentRig) TryPackTreasury() ([]byte, error) {
	return agentRig.abi.Pack("treasury")
}

// UnpackTreasury is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x61d027b3.
//
// Solidity: function treasury() view returns(address)
func (agentRig *AgentRig) UnpackTreasury(data []byte) (common.Address, error) {
	out, err := agentRig.abi.Unpack("treasury", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackUsedNonces is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6a8a6894.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function usedNonces(address , uint256 ) view returns(bool)
func (agentRig *AgentRig) PackUsedNonces(arg0 common.Address, arg1 *big.Int) []byte {
	enc, err := agentRig.abi.Pack("usedNonces", arg0, arg1)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackUsedNonces is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6a8a6894.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function usedNonces(address , uint256 ) view returns(bool)
func (agentRig *AgentRig) TryPackUsedNonces(arg0 common.Address, arg1 *big.Int) ([]byte, error) {
	return agentRig.abi.Pack("usedNonces", arg0, arg1)
}

// UnpackUsedNonces is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x6a8a6894.
//
// Solidity: function usedNonces(address , uint256 ) view returns(bool)
func (agentRig *AgentRig) UnpackUsedNonces(data []byte) (bool, error) {
	out, err := agentRig.abi.Unpack("usedNonces", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackWithdraw is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3ccfd60b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function withdraw() returns()
func (agentRig *AgentRig) PackWithdraw() []byte {
	enc, err := agentRig.abi.Pack("withdraw")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackWithdraw is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x3ccfd60b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function withdraw() returns()
func (agentRig *AgentRig) TryPackWithdraw() ([]byte, error) {
	return agentRig.abi.Pack("withdraw")
}

// PackWithdrawStake is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xbc4e7bfb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function withdrawStake(uint64 rigId, uint96 amount) returns()
func (agentRig *AgentRig) PackWithdrawStake(rigId uint64, amount *big.Int) []byte {
	enc, err := agentRig.abi.Pack("withdrawStake", rigId, amount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackWithdrawStake is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xbc4e7bfb.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function withdrawStake(uint64 rigId, uint96 amount) returns()
func (agentRig *AgentRig) TryPackWithdrawStake(rigId uint64, amount *big.Int) ([]byte, error) {
	return agentRig.abi.Pack("withdrawStake", rigId, amount)
}

// AgentRigCommitted represents a Committed event raised by the AgentRig contract.
type AgentRigCommitted struct {
	TaskId     *big.Int
	RigId      uint64
	Commitment [32]byte
	Raw        *types.Log // Blockchain specific contextual infos
}

const AgentRigCommittedEventName = "Committed"

// ContractEventName returns the user-defined event name.
func (AgentRigCommitted) ContractEventName() string {
	return AgentRigCommittedEventName
}

// UnpackCommittedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Committed(uint256 indexed taskId, uint64 indexed rigId, bytes32 commitment)
func (agentRig *AgentRig) UnpackCommittedEvent(log *types.Log) (*AgentRigCommitted, error) {
	event := "Committed"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != agentRig.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(AgentRigCommitted)
	if len(log.Data) > 0 {
		if err := agentRig.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range agentRig.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// AgentRigCredited represents a Credited event raised by the AgentRig contract.
type AgentRigCredited struct {
	Account common.Address
	TaskId  *big.Int
	Amount  *big.Int
	Reason  uint8
	Raw     *types.Log // Blockchain specific contextual infos
}

const AgentRigCreditedEventName = "Credited"

// ContractEventName returns the user-defined event name.
func (AgentRigCredited) ContractEventName() string {
	return AgentRigCreditedEventName
}

// UnpackCreditedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Credited(address indexed account, uint256 indexed taskId, uint256 amount, uint8 reason)
func (agentRig *AgentRig) UnpackCreditedEvent(log *types.Log) (*AgentRigCredited, error) {
	event := "Credited"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != agentRig.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(AgentRigCredited)
	if len(log.Data) > 0 {
		if err := agentRig.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range agentRig.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// AgentRigJobPublished represents a JobPublished event raised by the AgentRig contract.
type AgentRigJobPublished struct {
	JobId        uint32
	Builder      common.Address
	Kind         uint8
	Quorum       uint8
	Price        *big.Int
	Slash        *big.Int
	ToleranceBps uint32
	SpecURI      string
	Raw          *types.Log // Blockchain specific contextual infos
}

const AgentRigJobPublishedEventName = "JobPublished"

// ContractEventName returns the user-defined event name.
func (AgentRigJobPublished) ContractEventName() string {
	return AgentRigJobPublishedEventName
}

// UnpackJobPublishedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event JobPublished(uint32 indexed jobId, address indexed builder, uint8 kind, uint8 quorum, uint96 price, uint96 slash, uint32 toleranceBps, string specURI)
func (agentRig *AgentRig) UnpackJobPublishedEvent(log *types.Log) (*AgentRigJobPublished, error) {
	event := "JobPublished"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != agentRig.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(AgentRigJobPublished)
	if len(log.Data) > 0 {
		if err := agentRig.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range agentRig.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// AgentRigOperatorFeeSet represents a OperatorFeeSet event raised by the AgentRig contract.
type AgentRigOperatorFeeSet struct {
	Operator common.Address
	Payee    common.Address
	Bps      uint16
	Nonce    *big.Int
	Raw      *types.Log // Blockchain specific contextual infos
}

const AgentRigOperatorFeeSetEventName = "OperatorFeeSet"

// ContractEventName returns the user-defined event name.
func (AgentRigOperatorFeeSet) ContractEventName() string {
	return AgentRigOperatorFeeSetEventName
}

// UnpackOperatorFeeSetEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event OperatorFeeSet(address indexed operator, address indexed payee, uint16 bps, uint256 nonce)
func (agentRig *AgentRig) UnpackOperatorFeeSetEvent(log *types.Log) (*AgentRigOperatorFeeSet, error) {
	event := "OperatorFeeSet"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != agentRig.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(AgentRigOperatorFeeSet)
	if len(log.Data) > 0 {
		if err := agentRig.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range agentRig.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// AgentRigReanchored represents a Reanchored event raised by the AgentRig contract.
type AgentRigReanchored struct {
	TaskId     *big.Int
	OrderBlock uint64
	Raw        *types.Log // Blockchain specific contextual infos
}

const AgentRigReanchoredEventName = "Reanchored"

// ContractEventName returns the user-defined event name.
func (AgentRigReanchored) ContractEventName() string {
	return AgentRigReanchoredEventName
}

// UnpackReanchoredEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Reanchored(uint256 indexed taskId, uint64 orderBlock)
func (agentRig *AgentRig) UnpackReanchoredEvent(log *types.Log) (*AgentRigReanchored, error) {
	event := "Reanchored"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != agentRig.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(AgentRigReanchored)
	if len(log.Data) > 0 {
		if err := agentRig.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range agentRig.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// AgentRigRefunded represents a Refunded event raised by the AgentRig contract.
type AgentRigRefunded struct {
	TaskId  *big.Int
	Orderer common.Address
	Amount  *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const AgentRigRefundedEventName = "Refunded"

// ContractEventName returns the user-defined event name.
func (AgentRigRefunded) ContractEventName() string {
	return AgentRigRefundedEventName
}

// UnpackRefundedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Refunded(uint256 indexed taskId, address indexed orderer, uint256 amount)
func (agentRig *AgentRig) UnpackRefundedEvent(log *types.Log) (*AgentRigRefunded, error) {
	event := "Refunded"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != agentRig.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(AgentRigRefunded)
	if len(log.Data) > 0 {
		if err := agentRig.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range agentRig.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// AgentRigRevealOpened represents a RevealOpened event raised by the AgentRig contract.
type AgentRigRevealOpened struct {
	TaskId         *big.Int
	RevealDeadline uint64
	Raw            *types.Log // Blockchain specific contextual infos
}

const AgentRigRevealOpenedEventName = "RevealOpened"

// ContractEventName returns the user-defined event name.
func (AgentRigRevealOpened) ContractEventName() string {
	return AgentRigRevealOpenedEventName
}

// UnpackRevealOpenedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event RevealOpened(uint256 indexed taskId, uint64 revealDeadline)
func (agentRig *AgentRig) UnpackRevealOpenedEvent(log *types.Log) (*AgentRigRevealOpened, error) {
	event := "RevealOpened"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != agentRig.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(AgentRigRevealOpened)
	if len(log.Data) > 0 {
		if err := agentRig.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range agentRig.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// AgentRigRevealed represents a Revealed event raised by the AgentRig contract.
type AgentRigRevealed struct {
	TaskId *big.Int
	RigId  uint64
	Answer [32]byte
	Raw    *types.Log // Blockchain specific contextual infos
}

const AgentRigRevealedEventName = "Revealed"

// ContractEventName returns the user-defined event name.
func (AgentRigRevealed) ContractEventName() string {
	return AgentRigRevealedEventName
}

// UnpackRevealedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Revealed(uint256 indexed taskId, uint64 indexed rigId, bytes32 answer)
func (agentRig *AgentRig) UnpackRevealedEvent(log *types.Log) (*AgentRigRevealed, error) {
	event := "Revealed"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != agentRig.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(AgentRigRevealed)
	if len(log.Data) > 0 {
		if err := agentRig.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range agentRig.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// AgentRigRigDeactivated represents a RigDeactivated event raised by the AgentRig contract.
type AgentRigRigDeactivated struct {
	RigId uint64
	Raw   *types.Log // Blockchain specific contextual infos
}

const AgentRigRigDeactivatedEventName = "RigDeactivated"

// ContractEventName returns the user-defined event name.
func (AgentRigRigDeactivated) ContractEventName() string {
	return AgentRigRigDeactivatedEventName
}

// UnpackRigDeactivatedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event RigDeactivated(uint64 indexed rigId)
func (agentRig *AgentRig) UnpackRigDeactivatedEvent(log *types.Log) (*AgentRigRigDeactivated, error) {
	event := "RigDeactivated"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != agentRig.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(AgentRigRigDeactivated)
	if len(log.Data) > 0 {
		if err := agentRig.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range agentRig.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// AgentRigRigRegistered represents a RigRegistered event raised by the AgentRig contract.
type AgentRigRigRegistered struct {
	RigId    uint64
	JobId    uint32
	Operator common.Address
	Owner    common.Address
	Stake    *big.Int
	Raw      *types.Log // Blockchain specific contextual infos
}

const AgentRigRigRegisteredEventName = "RigRegistered"

// ContractEventName returns the user-defined event name.
func (AgentRigRigRegistered) ContractEventName() string {
	return AgentRigRigRegisteredEventName
}

// UnpackRigRegisteredEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event RigRegistered(uint64 indexed rigId, uint32 indexed jobId, address indexed operator, address owner, uint256 stake)
func (agentRig *AgentRig) UnpackRigRegisteredEvent(log *types.Log) (*AgentRigRigRegistered, error) {
	event := "RigRegistered"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != agentRig.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(AgentRigRigRegistered)
	if len(log.Data) > 0 {
		if err := agentRig.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range agentRig.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// AgentRigSettled represents a Settled event raised by the AgentRig contract.
type AgentRigSettled struct {
	TaskId  *big.Int
	Agreed  bool
	Answer  [32]byte
	Agree   uint8
	Reveals uint8
	Raw     *types.Log // Blockchain specific contextual infos
}

const AgentRigSettledEventName = "Settled"

// ContractEventName returns the user-defined event name.
func (AgentRigSettled) ContractEventName() string {
	return AgentRigSettledEventName
}

// UnpackSettledEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Settled(uint256 indexed taskId, bool agreed, bytes32 answer, uint8 agree, uint8 reveals)
func (agentRig *AgentRig) UnpackSettledEvent(log *types.Log) (*AgentRigSettled, error) {
	event := "Settled"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != agentRig.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(AgentRigSettled)
	if len(log.Data) > 0 {
		if err := agentRig.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range agentRig.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// AgentRigSkipped represents a Skipped event raised by the AgentRig contract.
type AgentRigSkipped struct {
	TaskId *big.Int
	Index  *big.Int
	Reason uint8
	Raw    *types.Log // Blockchain specific contextual infos
}

const AgentRigSkippedEventName = "Skipped"

// ContractEventName returns the user-defined event name.
func (AgentRigSkipped) ContractEventName() string {
	return AgentRigSkippedEventName
}

// UnpackSkippedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Skipped(uint256 indexed taskId, uint256 index, uint8 reason)
func (agentRig *AgentRig) UnpackSkippedEvent(log *types.Log) (*AgentRigSkipped, error) {
	event := "Skipped"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != agentRig.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(AgentRigSkipped)
	if len(log.Data) > 0 {
		if err := agentRig.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range agentRig.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// AgentRigSlashed represents a Slashed event raised by the AgentRig contract.
type AgentRigSlashed struct {
	TaskId *big.Int
	RigId  uint64
	Amount *big.Int
	Reason uint8
	Raw    *types.Log // Blockchain specific contextual infos
}

const AgentRigSlashedEventName = "Slashed"

// ContractEventName returns the user-defined event name.
func (AgentRigSlashed) ContractEventName() string {
	return AgentRigSlashedEventName
}

// UnpackSlashedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Slashed(uint256 indexed taskId, uint64 indexed rigId, uint96 amount, uint8 reason)
func (agentRig *AgentRig) UnpackSlashedEvent(log *types.Log) (*AgentRigSlashed, error) {
	event := "Slashed"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != agentRig.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(AgentRigSlashed)
	if len(log.Data) > 0 {
		if err := agentRig.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range agentRig.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// AgentRigStakeChanged represents a StakeChanged event raised by the AgentRig contract.
type AgentRigStakeChanged struct {
	RigId uint64
	Stake *big.Int
	Raw   *types.Log // Blockchain specific contextual infos
}

const AgentRigStakeChangedEventName = "StakeChanged"

// ContractEventName returns the user-defined event name.
func (AgentRigStakeChanged) ContractEventName() string {
	return AgentRigStakeChangedEventName
}

// UnpackStakeChangedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event StakeChanged(uint64 indexed rigId, uint256 stake)
func (agentRig *AgentRig) UnpackStakeChangedEvent(log *types.Log) (*AgentRigStakeChanged, error) {
	event := "StakeChanged"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != agentRig.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(AgentRigStakeChanged)
	if len(log.Data) > 0 {
		if err := agentRig.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range agentRig.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// AgentRigTaskDrawn represents a TaskDrawn event raised by the AgentRig contract.
type AgentRigTaskDrawn struct {
	TaskId         *big.Int
	JobId          uint32
	RigIds         []uint64
	CommitDeadline uint64
	RevealDeadline uint64
	Raw            *types.Log // Blockchain specific contextual infos
}

const AgentRigTaskDrawnEventName = "TaskDrawn"

// ContractEventName returns the user-defined event name.
func (AgentRigTaskDrawn) ContractEventName() string {
	return AgentRigTaskDrawnEventName
}

// UnpackTaskDrawnEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event TaskDrawn(uint256 indexed taskId, uint32 indexed jobId, uint64[] rigIds, uint64 commitDeadline, uint64 revealDeadline)
func (agentRig *AgentRig) UnpackTaskDrawnEvent(log *types.Log) (*AgentRigTaskDrawn, error) {
	event := "TaskDrawn"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != agentRig.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(AgentRigTaskDrawn)
	if len(log.Data) > 0 {
		if err := agentRig.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range agentRig.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// AgentRigTaskOrdered represents a TaskOrdered event raised by the AgentRig contract.
type AgentRigTaskOrdered struct {
	TaskId    *big.Int
	JobId     uint32
	Orderer   common.Address
	InputHash [32]byte
	InputURI  string
	Raw       *types.Log // Blockchain specific contextual infos
}

const AgentRigTaskOrderedEventName = "TaskOrdered"

// ContractEventName returns the user-defined event name.
func (AgentRigTaskOrdered) ContractEventName() string {
	return AgentRigTaskOrderedEventName
}

// UnpackTaskOrderedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event TaskOrdered(uint256 indexed taskId, uint32 indexed jobId, address indexed orderer, bytes32 inputHash, string inputURI)
func (agentRig *AgentRig) UnpackTaskOrderedEvent(log *types.Log) (*AgentRigTaskOrdered, error) {
	event := "TaskOrdered"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != agentRig.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(AgentRigTaskOrdered)
	if len(log.Data) > 0 {
		if err := agentRig.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range agentRig.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// AgentRigWithdrawn represents a Withdrawn event raised by the AgentRig contract.
type AgentRigWithdrawn struct {
	Account common.Address
	Amount  *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const AgentRigWithdrawnEventName = "Withdrawn"

// ContractEventName returns the user-defined event name.
func (AgentRigWithdrawn) ContractEventName() string {
	return AgentRigWithdrawnEventName
}

// UnpackWithdrawnEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Withdrawn(address indexed account, uint256 amount)
func (agentRig *AgentRig) UnpackWithdrawnEvent(log *types.Log) (*AgentRigWithdrawn, error) {
	event := "Withdrawn"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != agentRig.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(AgentRigWithdrawn)
	if len(log.Data) > 0 {
		if err := agentRig.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range agentRig.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (agentRig *AgentRig) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], agentRig.abi.Errors["AlreadyDone"].ID.Bytes()[:4]) {
		return agentRig.UnpackAlreadyDoneError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["BadAnswers"].ID.Bytes()[:4]) {
		return agentRig.UnpackBadAnswersError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["BadBps"].ID.Bytes()[:4]) {
		return agentRig.UnpackBadBpsError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["BadKind"].ID.Bytes()[:4]) {
		return agentRig.UnpackBadKindError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["BadPrice"].ID.Bytes()[:4]) {
		return agentRig.UnpackBadPriceError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["BadQuorum"].ID.Bytes()[:4]) {
		return agentRig.UnpackBadQuorumError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["BadSignature"].ID.Bytes()[:4]) {
		return agentRig.UnpackBadSignatureError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["BadSlash"].ID.Bytes()[:4]) {
		return agentRig.UnpackBadSlashError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["BadTolerance"].ID.Bytes()[:4]) {
		return agentRig.UnpackBadToleranceError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["CommitmentMismatch"].ID.Bytes()[:4]) {
		return agentRig.UnpackCommitmentMismatchError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["EmptyOrder"].ID.Bytes()[:4]) {
		return agentRig.UnpackEmptyOrderError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["LengthMismatch"].ID.Bytes()[:4]) {
		return agentRig.UnpackLengthMismatchError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["NonceUsed"].ID.Bytes()[:4]) {
		return agentRig.UnpackNonceUsedError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["NotCommitted"].ID.Bytes()[:4]) {
		return agentRig.UnpackNotCommittedError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["NotDrawn"].ID.Bytes()[:4]) {
		return agentRig.UnpackNotDrawnError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["NotEnoughRigs"].ID.Bytes()[:4]) {
		return agentRig.UnpackNotEnoughRigsError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["NotRigOwner"].ID.Bytes()[:4]) {
		return agentRig.UnpackNotRigOwnerError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["NothingToWithdraw"].ID.Bytes()[:4]) {
		return agentRig.UnpackNothingToWithdrawError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["RigInactive"].ID.Bytes()[:4]) {
		return agentRig.UnpackRigInactiveError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["StakeTooHigh"].ID.Bytes()[:4]) {
		return agentRig.UnpackStakeTooHighError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["StakeTooLow"].ID.Bytes()[:4]) {
		return agentRig.UnpackStakeTooLowError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["TooEarly"].ID.Bytes()[:4]) {
		return agentRig.UnpackTooEarlyError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["TransferFailed"].ID.Bytes()[:4]) {
		return agentRig.UnpackTransferFailedError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["UnknownJob"].ID.Bytes()[:4]) {
		return agentRig.UnpackUnknownJobError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["UnknownRig"].ID.Bytes()[:4]) {
		return agentRig.UnpackUnknownRigError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["WrongPhase"].ID.Bytes()[:4]) {
		return agentRig.UnpackWrongPhaseError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["WrongValue"].ID.Bytes()[:4]) {
		return agentRig.UnpackWrongValueError(raw[4:])
	}
	if bytes.Equal(raw[:4], agentRig.abi.Errors["ZeroOperator"].ID.Bytes()[:4]) {
		return agentRig.UnpackZeroOperatorError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// AgentRigAlreadyDone represents a AlreadyDone error raised by the AgentRig contract.
type AgentRigAlreadyDone struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error AlreadyDone()
func AgentRigAlreadyDoneErrorID() common.Hash {
	return common.HexToHash("0xbdb90210f52d8f68ab9dd7668196c96250dc1b15d2e106baa5a9ac4ab6ea0b0a")
}

// UnpackAlreadyDoneError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error AlreadyDone()
func (agentRig *AgentRig) UnpackAlreadyDoneError(raw []byte) (*AgentRigAlreadyDone, error) {
	out := new(AgentRigAlreadyDone)
	if err := agentRig.abi.UnpackIntoInterface(out, "AlreadyDone", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigBadAnswers represents a BadAnswers error raised by the AgentRig contract.
type AgentRigBadAnswers struct {
	Count  *big.Int
	Quorum uint8
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadAnswers(uint256 count, uint8 quorum)
func AgentRigBadAnswersErrorID() common.Hash {
	return common.HexToHash("0xb8b3d8234c98db974d6d914b937746c99b22a88f6aadca3832c81ae54ee7f763")
}

// UnpackBadAnswersError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadAnswers(uint256 count, uint8 quorum)
func (agentRig *AgentRig) UnpackBadAnswersError(raw []byte) (*AgentRigBadAnswers, error) {
	out := new(AgentRigBadAnswers)
	if err := agentRig.abi.UnpackIntoInterface(out, "BadAnswers", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigBadBps represents a BadBps error raised by the AgentRig contract.
type AgentRigBadBps struct {
	Bps uint16
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadBps(uint16 bps)
func AgentRigBadBpsErrorID() common.Hash {
	return common.HexToHash("0xf9c3ae8f90421820e72838f2f1f94c9ac2624a7c7c44acc89418b8891a350667")
}

// UnpackBadBpsError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadBps(uint16 bps)
func (agentRig *AgentRig) UnpackBadBpsError(raw []byte) (*AgentRigBadBps, error) {
	out := new(AgentRigBadBps)
	if err := agentRig.abi.UnpackIntoInterface(out, "BadBps", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigBadKind represents a BadKind error raised by the AgentRig contract.
type AgentRigBadKind struct {
	Kind uint8
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadKind(uint8 kind)
func AgentRigBadKindErrorID() common.Hash {
	return common.HexToHash("0xdfc03387cd0954383590214b37ff2382020510831b1add1a928434df7243c494")
}

// UnpackBadKindError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadKind(uint8 kind)
func (agentRig *AgentRig) UnpackBadKindError(raw []byte) (*AgentRigBadKind, error) {
	out := new(AgentRigBadKind)
	if err := agentRig.abi.UnpackIntoInterface(out, "BadKind", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigBadPrice represents a BadPrice error raised by the AgentRig contract.
type AgentRigBadPrice struct {
	Price *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadPrice(uint96 price)
func AgentRigBadPriceErrorID() common.Hash {
	return common.HexToHash("0xa0efa3eee4693f12c2c5f9ee2c3977efea2ce4f1edf254fcfacdcfe2b06ab9ab")
}

// UnpackBadPriceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadPrice(uint96 price)
func (agentRig *AgentRig) UnpackBadPriceError(raw []byte) (*AgentRigBadPrice, error) {
	out := new(AgentRigBadPrice)
	if err := agentRig.abi.UnpackIntoInterface(out, "BadPrice", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigBadQuorum represents a BadQuorum error raised by the AgentRig contract.
type AgentRigBadQuorum struct {
	Quorum uint8
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadQuorum(uint8 quorum)
func AgentRigBadQuorumErrorID() common.Hash {
	return common.HexToHash("0x87dba991d2bb4750db6382b490371b694c727b866650b930eefa73abe6f9d2e6")
}

// UnpackBadQuorumError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadQuorum(uint8 quorum)
func (agentRig *AgentRig) UnpackBadQuorumError(raw []byte) (*AgentRigBadQuorum, error) {
	out := new(AgentRigBadQuorum)
	if err := agentRig.abi.UnpackIntoInterface(out, "BadQuorum", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigBadSignature represents a BadSignature error raised by the AgentRig contract.
type AgentRigBadSignature struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadSignature()
func AgentRigBadSignatureErrorID() common.Hash {
	return common.HexToHash("0x5cd5d2335541c4f2ed05fbe44f397e8b79f8e2333157122d2dab06e378ef7685")
}

// UnpackBadSignatureError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadSignature()
func (agentRig *AgentRig) UnpackBadSignatureError(raw []byte) (*AgentRigBadSignature, error) {
	out := new(AgentRigBadSignature)
	if err := agentRig.abi.UnpackIntoInterface(out, "BadSignature", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigBadSlash represents a BadSlash error raised by the AgentRig contract.
type AgentRigBadSlash struct {
	Slash *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadSlash(uint96 slash)
func AgentRigBadSlashErrorID() common.Hash {
	return common.HexToHash("0x67406d1fdab7939c4be9a4b26ede25c03ae010488fa583fb42b92151d0afeff1")
}

// UnpackBadSlashError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadSlash(uint96 slash)
func (agentRig *AgentRig) UnpackBadSlashError(raw []byte) (*AgentRigBadSlash, error) {
	out := new(AgentRigBadSlash)
	if err := agentRig.abi.UnpackIntoInterface(out, "BadSlash", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigBadTolerance represents a BadTolerance error raised by the AgentRig contract.
type AgentRigBadTolerance struct {
	ToleranceBps uint32
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error BadTolerance(uint32 toleranceBps)
func AgentRigBadToleranceErrorID() common.Hash {
	return common.HexToHash("0xd17f050c91618262a1a52efb63448fc8fd600289b8f5674b54b287ec55dff807")
}

// UnpackBadToleranceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error BadTolerance(uint32 toleranceBps)
func (agentRig *AgentRig) UnpackBadToleranceError(raw []byte) (*AgentRigBadTolerance, error) {
	out := new(AgentRigBadTolerance)
	if err := agentRig.abi.UnpackIntoInterface(out, "BadTolerance", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigCommitmentMismatch represents a CommitmentMismatch error raised by the AgentRig contract.
type AgentRigCommitmentMismatch struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error CommitmentMismatch()
func AgentRigCommitmentMismatchErrorID() common.Hash {
	return common.HexToHash("0x5054097bb92104fdc128156d244c4d9d3a1008b45209d260b0cb38908eec9de3")
}

// UnpackCommitmentMismatchError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error CommitmentMismatch()
func (agentRig *AgentRig) UnpackCommitmentMismatchError(raw []byte) (*AgentRigCommitmentMismatch, error) {
	out := new(AgentRigCommitmentMismatch)
	if err := agentRig.abi.UnpackIntoInterface(out, "CommitmentMismatch", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigEmptyOrder represents a EmptyOrder error raised by the AgentRig contract.
type AgentRigEmptyOrder struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error EmptyOrder()
func AgentRigEmptyOrderErrorID() common.Hash {
	return common.HexToHash("0x1630779725df872137ed8cfe57655925ef0220c2468ac04242d7b4d55d1f4c51")
}

// UnpackEmptyOrderError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error EmptyOrder()
func (agentRig *AgentRig) UnpackEmptyOrderError(raw []byte) (*AgentRigEmptyOrder, error) {
	out := new(AgentRigEmptyOrder)
	if err := agentRig.abi.UnpackIntoInterface(out, "EmptyOrder", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigLengthMismatch represents a LengthMismatch error raised by the AgentRig contract.
type AgentRigLengthMismatch struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error LengthMismatch()
func AgentRigLengthMismatchErrorID() common.Hash {
	return common.HexToHash("0xff633a3803c58b9bc21e58efecee59f27e033cc0b1883fccb4969c76146fe60f")
}

// UnpackLengthMismatchError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error LengthMismatch()
func (agentRig *AgentRig) UnpackLengthMismatchError(raw []byte) (*AgentRigLengthMismatch, error) {
	out := new(AgentRigLengthMismatch)
	if err := agentRig.abi.UnpackIntoInterface(out, "LengthMismatch", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigNonceUsed represents a NonceUsed error raised by the AgentRig contract.
type AgentRigNonceUsed struct {
	Nonce *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NonceUsed(uint256 nonce)
func AgentRigNonceUsedErrorID() common.Hash {
	return common.HexToHash("0x1be5cb2f29a4876ca6fdf1177257bc6f2671bc7e036db0815016a6b766ecd115")
}

// UnpackNonceUsedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NonceUsed(uint256 nonce)
func (agentRig *AgentRig) UnpackNonceUsedError(raw []byte) (*AgentRigNonceUsed, error) {
	out := new(AgentRigNonceUsed)
	if err := agentRig.abi.UnpackIntoInterface(out, "NonceUsed", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigNotCommitted represents a NotCommitted error raised by the AgentRig contract.
type AgentRigNotCommitted struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotCommitted()
func AgentRigNotCommittedErrorID() common.Hash {
	return common.HexToHash("0x81791cb43e68aa2787915f848c31dc1c72f0105a3515ef1351d4a682bdf3133c")
}

// UnpackNotCommittedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotCommitted()
func (agentRig *AgentRig) UnpackNotCommittedError(raw []byte) (*AgentRigNotCommitted, error) {
	out := new(AgentRigNotCommitted)
	if err := agentRig.abi.UnpackIntoInterface(out, "NotCommitted", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigNotDrawn represents a NotDrawn error raised by the AgentRig contract.
type AgentRigNotDrawn struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotDrawn()
func AgentRigNotDrawnErrorID() common.Hash {
	return common.HexToHash("0xc3dc9ed67666a52cdf2435b08a1194a4fa10321453808f6838a5e5b9b19d5664")
}

// UnpackNotDrawnError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotDrawn()
func (agentRig *AgentRig) UnpackNotDrawnError(raw []byte) (*AgentRigNotDrawn, error) {
	out := new(AgentRigNotDrawn)
	if err := agentRig.abi.UnpackIntoInterface(out, "NotDrawn", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigNotEnoughRigs represents a NotEnoughRigs error raised by the AgentRig contract.
type AgentRigNotEnoughRigs struct {
	Active *big.Int
	Quorum uint8
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotEnoughRigs(uint256 active, uint8 quorum)
func AgentRigNotEnoughRigsErrorID() common.Hash {
	return common.HexToHash("0x7b20cfc0f416521fe5dc9ad31c708c520d8ffcf9b8ed75d5ef765f3281082b03")
}

// UnpackNotEnoughRigsError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotEnoughRigs(uint256 active, uint8 quorum)
func (agentRig *AgentRig) UnpackNotEnoughRigsError(raw []byte) (*AgentRigNotEnoughRigs, error) {
	out := new(AgentRigNotEnoughRigs)
	if err := agentRig.abi.UnpackIntoInterface(out, "NotEnoughRigs", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigNotRigOwner represents a NotRigOwner error raised by the AgentRig contract.
type AgentRigNotRigOwner struct {
	RigId uint64
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotRigOwner(uint64 rigId)
func AgentRigNotRigOwnerErrorID() common.Hash {
	return common.HexToHash("0x2a93efc49562cbfc5c6ab532af62e5ff2528e550f9e3fd5916bd8de33080a815")
}

// UnpackNotRigOwnerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotRigOwner(uint64 rigId)
func (agentRig *AgentRig) UnpackNotRigOwnerError(raw []byte) (*AgentRigNotRigOwner, error) {
	out := new(AgentRigNotRigOwner)
	if err := agentRig.abi.UnpackIntoInterface(out, "NotRigOwner", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigNothingToWithdraw represents a NothingToWithdraw error raised by the AgentRig contract.
type AgentRigNothingToWithdraw struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NothingToWithdraw()
func AgentRigNothingToWithdrawErrorID() common.Hash {
	return common.HexToHash("0xd0d04f60bf4f7629141a1f00f5d2908fa0f3e15bf4cbf8bb8edc6fcbdf2509fa")
}

// UnpackNothingToWithdrawError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NothingToWithdraw()
func (agentRig *AgentRig) UnpackNothingToWithdrawError(raw []byte) (*AgentRigNothingToWithdraw, error) {
	out := new(AgentRigNothingToWithdraw)
	if err := agentRig.abi.UnpackIntoInterface(out, "NothingToWithdraw", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigRigInactive represents a RigInactive error raised by the AgentRig contract.
type AgentRigRigInactive struct {
	RigId uint64
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error RigInactive(uint64 rigId)
func AgentRigRigInactiveErrorID() common.Hash {
	return common.HexToHash("0x2543aab0a34d1ef3ed8717817726b26dcbd829e78ab9af6ca200ec48676f3fe4")
}

// UnpackRigInactiveError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error RigInactive(uint64 rigId)
func (agentRig *AgentRig) UnpackRigInactiveError(raw []byte) (*AgentRigRigInactive, error) {
	out := new(AgentRigRigInactive)
	if err := agentRig.abi.UnpackIntoInterface(out, "RigInactive", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigStakeTooHigh represents a StakeTooHigh error raised by the AgentRig contract.
type AgentRigStakeTooHigh struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error StakeTooHigh()
func AgentRigStakeTooHighErrorID() common.Hash {
	return common.HexToHash("0x735b16e322abc998f664947fbf65740acb921424f8e29aa5c8495a37dbf445e3")
}

// UnpackStakeTooHighError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error StakeTooHigh()
func (agentRig *AgentRig) UnpackStakeTooHighError(raw []byte) (*AgentRigStakeTooHigh, error) {
	out := new(AgentRigStakeTooHigh)
	if err := agentRig.abi.UnpackIntoInterface(out, "StakeTooHigh", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigStakeTooLow represents a StakeTooLow error raised by the AgentRig contract.
type AgentRigStakeTooLow struct {
	Stake  *big.Int
	Needed *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error StakeTooLow(uint256 stake, uint256 needed)
func AgentRigStakeTooLowErrorID() common.Hash {
	return common.HexToHash("0x829f11638d406de2605d01f8ea108c1f13393def0f2b7b6e6ffffd9996d50bd5")
}

// UnpackStakeTooLowError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error StakeTooLow(uint256 stake, uint256 needed)
func (agentRig *AgentRig) UnpackStakeTooLowError(raw []byte) (*AgentRigStakeTooLow, error) {
	out := new(AgentRigStakeTooLow)
	if err := agentRig.abi.UnpackIntoInterface(out, "StakeTooLow", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigTooEarly represents a TooEarly error raised by the AgentRig contract.
type AgentRigTooEarly struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error TooEarly()
func AgentRigTooEarlyErrorID() common.Hash {
	return common.HexToHash("0x085de625ed51bbce95c12627fc263453b8d214878d184bd1eaa2cc357a507a30")
}

// UnpackTooEarlyError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error TooEarly()
func (agentRig *AgentRig) UnpackTooEarlyError(raw []byte) (*AgentRigTooEarly, error) {
	out := new(AgentRigTooEarly)
	if err := agentRig.abi.UnpackIntoInterface(out, "TooEarly", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigTransferFailed represents a TransferFailed error raised by the AgentRig contract.
type AgentRigTransferFailed struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error TransferFailed()
func AgentRigTransferFailedErrorID() common.Hash {
	return common.HexToHash("0x90b8ec1877afffd816d05d9b13947f3ff18ec5851c38bad15ec2b710f92391b1")
}

// UnpackTransferFailedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error TransferFailed()
func (agentRig *AgentRig) UnpackTransferFailedError(raw []byte) (*AgentRigTransferFailed, error) {
	out := new(AgentRigTransferFailed)
	if err := agentRig.abi.UnpackIntoInterface(out, "TransferFailed", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigUnknownJob represents a UnknownJob error raised by the AgentRig contract.
type AgentRigUnknownJob struct {
	JobId uint32
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error UnknownJob(uint32 jobId)
func AgentRigUnknownJobErrorID() common.Hash {
	return common.HexToHash("0xd645e7365fe82f795cfd10c92be57d220a2e0b0717816c2a982bc6424e916029")
}

// UnpackUnknownJobError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error UnknownJob(uint32 jobId)
func (agentRig *AgentRig) UnpackUnknownJobError(raw []byte) (*AgentRigUnknownJob, error) {
	out := new(AgentRigUnknownJob)
	if err := agentRig.abi.UnpackIntoInterface(out, "UnknownJob", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigUnknownRig represents a UnknownRig error raised by the AgentRig contract.
type AgentRigUnknownRig struct {
	RigId uint64
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error UnknownRig(uint64 rigId)
func AgentRigUnknownRigErrorID() common.Hash {
	return common.HexToHash("0x7f16b06097c65868615999b5a19aca370002486023c0a7fdff3ae7e99e340276")
}

// UnpackUnknownRigError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error UnknownRig(uint64 rigId)
func (agentRig *AgentRig) UnpackUnknownRigError(raw []byte) (*AgentRigUnknownRig, error) {
	out := new(AgentRigUnknownRig)
	if err := agentRig.abi.UnpackIntoInterface(out, "UnknownRig", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigWrongPhase represents a WrongPhase error raised by the AgentRig contract.
type AgentRigWrongPhase struct {
	Phase uint8
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error WrongPhase(uint8 phase)
func AgentRigWrongPhaseErrorID() common.Hash {
	return common.HexToHash("0x96fe8cdd585d6e16539084786ef0330f221a01706accefe0bc861b9b7c7ccd00")
}

// UnpackWrongPhaseError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error WrongPhase(uint8 phase)
func (agentRig *AgentRig) UnpackWrongPhaseError(raw []byte) (*AgentRigWrongPhase, error) {
	out := new(AgentRigWrongPhase)
	if err := agentRig.abi.UnpackIntoInterface(out, "WrongPhase", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigWrongValue represents a WrongValue error raised by the AgentRig contract.
type AgentRigWrongValue struct {
	Sent     *big.Int
	Expected *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error WrongValue(uint256 sent, uint256 expected)
func AgentRigWrongValueErrorID() common.Hash {
	return common.HexToHash("0x195a3ca12ac3744ef64727effb118b3b203c382e49c7a7d24d450eae5e3b889a")
}

// UnpackWrongValueError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error WrongValue(uint256 sent, uint256 expected)
func (agentRig *AgentRig) UnpackWrongValueError(raw []byte) (*AgentRigWrongValue, error) {
	out := new(AgentRigWrongValue)
	if err := agentRig.abi.UnpackIntoInterface(out, "WrongValue", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// AgentRigZeroOperator represents a ZeroOperator error raised by the AgentRig contract.
type AgentRigZeroOperator struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ZeroOperator()
func AgentRigZeroOperatorErrorID() common.Hash {
	return common.HexToHash("0x89961e91613b49840d0ff97d3c49f058682f235a628f47cb992df4aad1949179")
}

// UnpackZeroOperatorError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ZeroOperator()
func (agentRig *AgentRig) UnpackZeroOperatorError(raw []byte) (*AgentRigZeroOperator, error) {
	out := new(AgentRigZeroOperator)
	if err := agentRig.abi.UnpackIntoInterface(out, "ZeroOperator", raw); err != nil {
		return nil, err
	}
	return out, nil
}
