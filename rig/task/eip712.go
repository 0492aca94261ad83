package task

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/pricerig/pricerig/numeric"
)

// EIP-712 as the seed sets it: domain {name "AgentRig", version "1", chainId, verifyingContract}
// and three message types. Operators sign these so that a relayer can carry their commits and
// reveals (commitMany/revealMany) and so that a relayer's fee is something the operator agreed to.
const (
	DomainName    = "AgentRig"
	DomainVersion = "1"
)

// The EIP-712 types, exactly as the contract hashes them.
var eip712Types = apitypes.Types{
	"EIP712Domain": {
		{Name: "name", Type: "string"},
		{Name: "version", Type: "string"},
		{Name: "chainId", Type: "uint256"},
		{Name: "verifyingContract", Type: "address"},
	},
	"Commit": {
		{Name: "taskId", Type: "uint256"},
		{Name: "commitment", Type: "bytes32"},
	},
	"Reveal": {
		{Name: "taskId", Type: "uint256"},
		{Name: "answer", Type: "bytes32"},
		{Name: "salt", Type: "bytes32"},
	},
	"OperatorFee": {
		{Name: "operator", Type: "address"},
		{Name: "bps", Type: "uint16"},
		{Name: "payee", Type: "address"},
		{Name: "nonce", Type: "uint256"},
	},
}

// Domain is one AgentRig deployment: the chain it runs on (the contract uses block.chainid;
// Robinhood Chain is 4663, and so is the devnet; the bare simulated backend is 1337) and its
// address.
type Domain struct {
	ChainID  *big.Int
	Contract common.Address
}

// OperatorFee is an operator's consent that Payee (its relayer) takes Bps basis points of the
// operator's rig earnings. The contract accepts each (operator, nonce) once.
type OperatorFee struct {
	Operator common.Address
	Bps      uint16
	Payee    common.Address
	Nonce    *big.Int
}

// CommitTypedData is Commit(uint256 taskId,bytes32 commitment) in this domain, in the form
// eth_signTypedData_v4 takes, for wallets and remote signers.
func (d Domain) CommitTypedData(taskID *big.Int, commitment common.Hash) apitypes.TypedData {
	return d.typed("Commit", apitypes.TypedDataMessage{
		"taskId":     bigOrNil(taskID),
		"commitment": [32]byte(commitment),
	})
}

// RevealTypedData is Reveal(uint256 taskId,bytes32 answer,bytes32 salt) in this domain.
func (d Domain) RevealTypedData(taskID *big.Int, answer numeric.Answer, salt Salt) apitypes.TypedData {
	return d.typed("Reveal", apitypes.TypedDataMessage{
		"taskId": bigOrNil(taskID),
		"answer": answer,
		"salt":   salt,
	})
}

// OperatorFeeTypedData is OperatorFee(address operator,uint16 bps,address payee,uint256 nonce).
func (d Domain) OperatorFeeTypedData(fee OperatorFee) apitypes.TypedData {
	return d.typed("OperatorFee", apitypes.TypedDataMessage{
		"operator": fee.Operator.Hex(),
		"bps":      new(big.Int).SetUint64(uint64(fee.Bps)),
		"payee":    fee.Payee.Hex(),
		"nonce":    bigOrNil(fee.Nonce),
	})
}

// CommitDigest is the EIP-712 digest an operator signs for a relayed commit.
func (d Domain) CommitDigest(taskID *big.Int, commitment common.Hash) (common.Hash, error) {
	return d.digest(d.CommitTypedData(taskID, commitment))
}

// RevealDigest is the EIP-712 digest an operator signs for a relayed reveal.
func (d Domain) RevealDigest(taskID *big.Int, answer numeric.Answer, salt Salt) (common.Hash, error) {
	return d.digest(d.RevealTypedData(taskID, answer, salt))
}

// OperatorFeeDigest is the EIP-712 digest an operator signs to consent to a relayer's fee.
func (d Domain) OperatorFeeDigest(fee OperatorFee) (common.Hash, error) {
	if fee.Bps > numeric.BpsDenominator {
		return common.Hash{}, fmt.Errorf("operator fee of %d bps is more than 10000", fee.Bps)
	}
	return d.digest(d.OperatorFeeTypedData(fee))
}

func (d Domain) typed(primary string, msg apitypes.TypedDataMessage) apitypes.TypedData {
	var chainID *math.HexOrDecimal256
	if d.ChainID != nil {
		chainID = (*math.HexOrDecimal256)(new(big.Int).Set(d.ChainID))
	}
	return apitypes.TypedData{
		Types:       eip712Types,
		PrimaryType: primary,
		Domain: apitypes.TypedDataDomain{
			Name:              DomainName,
			Version:           DomainVersion,
			ChainId:           chainID,
			VerifyingContract: d.Contract.Hex(),
		},
		Message: msg,
	}
}

func (d Domain) digest(td apitypes.TypedData) (common.Hash, error) {
	if d.ChainID == nil || d.ChainID.Sign() <= 0 {
		return common.Hash{}, errors.New("EIP-712 domain needs a positive chain id")
	}
	// Every value must be present: apitypes would hash a missing uint256 as an error, but a
	// nil *big.Int in the map is a programming error we report plainly.
	for k, v := range td.Message {
		if b, ok := v.(*big.Int); ok && b == nil {
			return common.Hash{}, fmt.Errorf("EIP-712 %s: %s is missing", td.PrimaryType, k)
		}
	}
	h, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		return common.Hash{}, fmt.Errorf("EIP-712 %s: %w", td.PrimaryType, err)
	}
	return common.BytesToHash(h), nil
}

func bigOrNil(v *big.Int) *big.Int {
	if v == nil {
		return nil
	}
	return new(big.Int).Set(v)
}

// Signer signs EIP-712 digests for one operator key. KeySigner keeps the key in memory; a rig
// can plug in another (a remote signer) with the same two methods.
type Signer interface {
	Address() common.Address
	// SignDigest returns a 65-byte signature r ‖ s ‖ v with v = 27 or 28, as ecrecover and
	// eth_signTypedData produce it.
	SignDigest(digest common.Hash) ([]byte, error)
}

// KeySigner signs with a secp256k1 private key held in memory.
type KeySigner struct {
	key  *ecdsa.PrivateKey
	addr common.Address
}

// NewKeySigner wraps a private key.
func NewKeySigner(key *ecdsa.PrivateKey) *KeySigner {
	return &KeySigner{key: key, addr: crypto.PubkeyToAddress(key.PublicKey)}
}

// ParseKeyHex reads a hex private key (with or without 0x). Its errors never contain the text
// they were given, since that text is a secret.
func ParseKeyHex(text string) (*KeySigner, error) {
	s := strings.TrimSpace(text)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(s) != 64 {
		return nil, fmt.Errorf("private key must be 32 bytes of hex (64 digits), got %d characters", len(s))
	}
	raw, err := hexutil.Decode("0x" + s)
	if err != nil {
		return nil, errors.New("private key is not hex")
	}
	key, err := crypto.ToECDSA(raw)
	if err != nil {
		return nil, errors.New("private key is not a valid secp256k1 key")
	}
	return NewKeySigner(key), nil
}

// Address is the operator address the key signs for.
func (s *KeySigner) Address() common.Address { return s.addr }

// SignDigest signs a 32-byte digest, returning r ‖ s ‖ v with v = 27 or 28.
func (s *KeySigner) SignDigest(digest common.Hash) ([]byte, error) {
	sig, err := crypto.Sign(digest[:], s.key)
	if err != nil {
		return nil, err
	}
	sig[64] += 27
	return sig, nil
}

// ErrSignature is wrapped by every error about a signature that does not check out.
var ErrSignature = errors.New("bad signature")

// secp256k1n / 2: a signature with a larger s is the malleable twin of a valid one, and the
// contract refuses it, so Recover does too.
var halfN = new(big.Int).Rsh(crypto.S256().Params().N, 1)

// Recover returns the address whose key made sig over digest, under the contract's rules:
// 65 bytes, v 27/28 (or 0/1), s in the lower half of the curve order.
func Recover(digest common.Hash, sig []byte) (common.Address, error) {
	if len(sig) != 65 {
		return common.Address{}, fmt.Errorf("%w: %d bytes, want 65", ErrSignature, len(sig))
	}
	v := sig[64]
	if v >= 27 {
		v -= 27
	}
	if v > 1 {
		return common.Address{}, fmt.Errorf("%w: v is %d", ErrSignature, sig[64])
	}
	if new(big.Int).SetBytes(sig[32:64]).Cmp(halfN) > 0 {
		return common.Address{}, fmt.Errorf("%w: s is in the upper half of the curve order", ErrSignature)
	}
	norm := make([]byte, 65)
	copy(norm, sig)
	norm[64] = v
	pub, err := crypto.SigToPub(digest[:], norm)
	if err != nil {
		return common.Address{}, fmt.Errorf("%w: %v", ErrSignature, err)
	}
	return crypto.PubkeyToAddress(*pub), nil
}

// Verify checks that sig over digest was made by operator.
func Verify(digest common.Hash, sig []byte, operator common.Address) error {
	got, err := Recover(digest, sig)
	if err != nil {
		return err
	}
	if got != operator {
		return fmt.Errorf("%w: signed by %s, not %s", ErrSignature, got.Hex(), operator.Hex())
	}
	return nil
}
