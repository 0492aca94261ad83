// Code generated via abigen V2 - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package devnet

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

// DevnetArbOSMetaData contains all meta data concerning the DevnetArbOS contract.
var DevnetArbOSMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[],\"name\":\"NotSequencer\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"number\",\"type\":\"uint256\"}],\"name\":\"l1BlockHash\",\"outputs\":[{\"internalType\":\"bytes32\",\"name\":\"\",\"type\":\"bytes32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"l1BlockNumber\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"sequencer\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"l1\",\"type\":\"uint256\"},{\"internalType\":\"bytes32\",\"name\":\"parentHash\",\"type\":\"bytes32\"}],\"name\":\"startBlock\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "DevnetArbOS",
}

// DevnetArbOS is an auto generated Go binding around an Ethereum contract.
type DevnetArbOS struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *DevnetArbOS) GetABI() abi.ABI {
	return c.abi
}

// NewDevnetArbOS creates a new instance of DevnetArbOS.
func NewDevnetArbOS() *DevnetArbOS {
	parsed, err := DevnetArbOSMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &DevnetArbOS{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *DevnetArbOS) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackL1BlockHash is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb84b49b7.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function l1BlockHash(uint256 number) view returns(bytes32)
func (devnetArbOS *DevnetArbOS) PackL1BlockHash(number *big.Int) []byte {
	enc, err := devnetArbOS.abi.Pack("l1BlockHash", number)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackL1BlockHash is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xb84b49b7.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function l1BlockHash(uint256 number) view returns(bytes32)
func (devnetArbOS *DevnetArbOS) TryPackL1BlockHash(number *big.Int) ([]byte, error) {
	return devnetArbOS.abi.Pack("l1BlockHash", number)
}

// UnpackL1BlockHash is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xb84b49b7.
//
// Solidity: function l1BlockHash(uint256 number) view returns(bytes32)
func (devnetArbOS *DevnetArbOS) UnpackL1BlockHash(data []byte) ([32]byte, error) {
	out, err := devnetArbOS.abi.Unpack("l1BlockHash", data)
	if err != nil {
		return *new([32]byte), err
	}
	out0 := *abi.ConvertType(out[0], new([32]byte)).(*[32]byte)
	return out0, nil
}

// PackL1BlockNumber is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x298c9005.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function l1BlockNumber() view returns(uint256)
func (devnetArbOS *DevnetArbOS) PackL1BlockNumber() []byte {
	enc, err := devnetArbOS.abi.Pack("l1BlockNumber")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackL1BlockNumber is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x298c9005.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function l1BlockNumber() view returns(uint256)
func (devnetArbOS *DevnetArbOS) TryPackL1BlockNumber() ([]byte, error) {
	return devnetArbOS.abi.Pack("l1BlockNumber")
}

// UnpackL1BlockNumber is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x298c9005.
//
// Solidity: function l1BlockNumber() view returns(uint256)
func (devnetArbOS *DevnetArbOS) UnpackL1BlockNumber(data []byte) (*big.Int, error) {
	out, err := devnetArbOS.abi.Unpack("l1BlockNumber", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackSequencer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5c1bba38.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function sequencer() view returns(address)
func (devnetArbOS *DevnetArbOS) PackSequencer() []byte {
	enc, err := devnetArbOS.abi.Pack("sequencer")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSequencer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x5c1bba38.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function sequencer() view returns(address)
func (devnetArbOS *DevnetArbOS) TryPackSequencer() ([]byte, error) {
	return devnetArbOS.abi.Pack("sequencer")
}

// UnpackSequencer is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x5c1bba38.
//
// Solidity: function sequencer() view returns(address)
func (devnetArbOS *DevnetArbOS) UnpackSequencer(data []byte) (common.Address, error) {
	out, err := devnetArbOS.abi.Unpack("sequencer", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackStartBlock is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x15926dae.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function startBlock(uint256 l1, bytes32 parentHash) returns()
func (devnetArbOS *DevnetArbOS) PackStartBlock(l1 *big.Int, parentHash [32]byte) []byte {
	enc, err := devnetArbOS.abi.Pack("startBlock", l1, parentHash)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackStartBlock is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x15926dae.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function startBlock(uint256 l1, bytes32 parentHash) returns()
func (devnetArbOS *DevnetArbOS) TryPackStartBlock(l1 *big.Int, parentHash [32]byte) ([]byte, error) {
	return devnetArbOS.abi.Pack("startBlock", l1, parentHash)
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (devnetArbOS *DevnetArbOS) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], devnetArbOS.abi.Errors["NotSequencer"].ID.Bytes()[:4]) {
		return devnetArbOS.UnpackNotSequencerError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// DevnetArbOSNotSequencer represents a NotSequencer error raised by the DevnetArbOS contract.
type DevnetArbOSNotSequencer struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotSequencer()
func DevnetArbOSNotSequencerErrorID() common.Hash {
	return common.HexToHash("0x53e2827c451a0a0f171a8880e9c351ab8000b3d4f27c8efd66e3187f39b035eb")
}

// UnpackNotSequencerError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotSequencer()
func (devnetArbOS *DevnetArbOS) UnpackNotSequencerError(raw []byte) (*DevnetArbOSNotSequencer, error) {
	out := new(DevnetArbOSNotSequencer)
	if err := devnetArbOS.abi.UnpackIntoInterface(out, "NotSequencer", raw); err != nil {
		return nil, err
	}
	return out, nil
}
