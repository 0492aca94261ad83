package task_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/agentrig"
	rigtask "github.com/pricerig/pricerig/rig/task"
)

var (
	testDomain = rigtask.Domain{ChainID: big.NewInt(4663), Contract: common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")}
	testKeyHex = "0x" + hexutil.Encode(crypto.Keccak256([]byte("pricerig eip712 test key")))[2:]
)

func testSigner(t *testing.T) *rigtask.KeySigner {
	t.Helper()
	s, err := rigtask.ParseKeyHex(testKeyHex)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The digests computed through apitypes must equal the EIP-712 definition written out by hand.
func TestDigestsByHand(t *testing.T) {
	word := func(v *big.Int) []byte { return common.LeftPadBytes(v.Bytes(), 32) }
	k := crypto.Keccak256
	domainSep := k(
		k([]byte("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)")),
		k([]byte("AgentRig")), k([]byte("1")),
		word(testDomain.ChainID), common.LeftPadBytes(testDomain.Contract.Bytes(), 32),
	)
	digest := func(structHash []byte) common.Hash {
		return common.BytesToHash(k([]byte{0x19, 0x01}, domainSep, structHash))
	}
	task := big.NewInt(42)
	commitment := common.HexToHash("0x1234")
	answer := answerFromInt(t, 17_712_000_000)
	salt := rigtask.Salt{0xab, 31: 0xcd}
	fee := rigtask.OperatorFee{Operator: common.HexToAddress("0x01"), Bps: 250, Payee: common.HexToAddress("0x02"), Nonce: big.NewInt(7)}

	got, err := testDomain.CommitDigest(task, commitment)
	if want := digest(k(k([]byte("Commit(uint256 taskId,bytes32 commitment)")), word(task), commitment[:])); err != nil || got != want {
		t.Errorf("CommitDigest = %s, %v; want %s", got.Hex(), err, want.Hex())
	}
	got, err = testDomain.RevealDigest(task, answer, salt)
	if want := digest(k(k([]byte("Reveal(uint256 taskId,bytes32 answer,bytes32 salt)")), word(task), answer[:], salt[:])); err != nil || got != want {
		t.Errorf("RevealDigest = %s, %v; want %s", got.Hex(), err, want.Hex())
	}
	got, err = testDomain.OperatorFeeDigest(fee)
	if want := digest(k(k([]byte("OperatorFee(address operator,uint16 bps,address payee,uint256 nonce)")),
		common.LeftPadBytes(fee.Operator.Bytes(), 32), word(big.NewInt(int64(fee.Bps))),
		common.LeftPadBytes(fee.Payee.Bytes(), 32), word(fee.Nonce))); err != nil || got != want {
		t.Errorf("OperatorFeeDigest = %s, %v; want %s", got.Hex(), err, want.Hex())
	}
	// The chain id and the contract are part of the domain.
	other := rigtask.Domain{ChainID: big.NewInt(1337), Contract: testDomain.Contract}
	a, _ := testDomain.CommitDigest(task, commitment)
	b, _ := other.CommitDigest(task, commitment)
	c, _ := rigtask.Domain{ChainID: testDomain.ChainID, Contract: common.HexToAddress("0x99")}.CommitDigest(task, commitment)
	if a == b || a == c {
		t.Error("digest does not depend on the chain id or the contract")
	}
}

func TestDigestErrors(t *testing.T) {
	if _, err := (rigtask.Domain{Contract: testDomain.Contract}).CommitDigest(big.NewInt(1), common.Hash{}); err == nil {
		t.Error("a domain without chain id must fail")
	}
	if _, err := testDomain.CommitDigest(nil, common.Hash{}); err == nil {
		t.Error("a nil task id must fail")
	}
	if _, err := testDomain.CommitDigest(big.NewInt(-1), common.Hash{}); err == nil {
		t.Error("a negative task id must fail")
	}
	if _, err := testDomain.OperatorFeeDigest(rigtask.OperatorFee{Bps: 10001, Nonce: big.NewInt(1)}); err == nil {
		t.Error("bps over 10000 must fail")
	}
	if _, err := testDomain.OperatorFeeDigest(rigtask.OperatorFee{Bps: 1}); err == nil {
		t.Error("a nil nonce must fail")
	}
}

func TestSignRecoverVerify(t *testing.T) {
	s := testSigner(t)
	digest, err := testDomain.CommitDigest(big.NewInt(9), common.HexToHash("0xfeed"))
	if err != nil {
		t.Fatal(err)
	}
	sig, err := s.SignDigest(digest)
	if err != nil {
		t.Fatal(err)
	}
	if len(sig) != 65 || (sig[64] != 27 && sig[64] != 28) {
		t.Fatalf("signature %x: want 65 bytes with v 27/28", sig)
	}
	if got, err := rigtask.Recover(digest, sig); err != nil || got != s.Address() {
		t.Fatalf("Recover = %s, %v; want %s", got.Hex(), err, s.Address().Hex())
	}
	if err := rigtask.Verify(digest, sig, s.Address()); err != nil {
		t.Fatal(err)
	}
	stranger := common.HexToAddress("0xdead")
	if err := rigtask.Verify(digest, sig, stranger); !errors.Is(err, rigtask.ErrSignature) {
		t.Fatalf("Verify against another operator: %v", err)
	}
	other, _ := testDomain.CommitDigest(big.NewInt(10), common.HexToHash("0xfeed"))
	if err := rigtask.Verify(other, sig, s.Address()); !errors.Is(err, rigtask.ErrSignature) {
		t.Fatalf("a signature over another digest verified: %v", err)
	}
	// v as 0/1 is the same signature.
	low := bytes.Clone(sig)
	low[64] -= 27
	if got, err := rigtask.Recover(digest, low); err != nil || got != s.Address() {
		t.Fatalf("v 0/1: %s, %v", got.Hex(), err)
	}
	// The malleable twin (s → n − s, v flipped) recovers the same key by ecrecover, but the
	// contract refuses it, so Recover must too.
	twin := bytes.Clone(sig)
	n := crypto.S256().Params().N
	copy(twin[32:64], common.LeftPadBytes(new(big.Int).Sub(n, new(big.Int).SetBytes(sig[32:64])).Bytes(), 32))
	twin[64] ^= 1
	if _, err := rigtask.Recover(digest, twin); !errors.Is(err, rigtask.ErrSignature) {
		t.Fatalf("high-s twin accepted: %v", err)
	}
	bad := bytes.Clone(sig)
	bad[64] = 29
	for name, b := range map[string][]byte{"short": sig[:64], "long": append(bytes.Clone(sig), 0), "v 29": bad} {
		if _, err := rigtask.Recover(digest, b); !errors.Is(err, rigtask.ErrSignature) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestParseKeyHex(t *testing.T) {
	s := testSigner(t)
	noPrefix, err := rigtask.ParseKeyHex(strings.TrimPrefix(testKeyHex, "0x") + "\n")
	if err != nil || noPrefix.Address() != s.Address() {
		t.Fatalf("without 0x and with a newline: %v", err)
	}
	secret := "0x" + strings.Repeat("zz", 32)
	for _, in := range []string{"", "0x1234", secret, "0x" + strings.Repeat("00", 32), "0x" + strings.Repeat("ff", 32)} {
		_, err := rigtask.ParseKeyHex(in)
		if err == nil {
			t.Errorf("ParseKeyHex(%q) accepted", in)
			continue
		}
		if in != "" && strings.Contains(err.Error(), strings.TrimPrefix(in, "0x")) {
			t.Errorf("error %q repeats the key text", err)
		}
	}
}

// The contract computes the same digests and commitments, and accepts the signatures: the
// EIP-712 domain there uses block.chainid (1337 on the simulated backend) and its own address.
func TestDigestsMatchContract(t *testing.T) {
	sim, err := agentrig.NewSim(agentrig.SimConfig{Accounts: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	if sim.ChainID.Int64() != 1337 {
		t.Fatalf("simulated chain id %s", sim.ChainID)
	}
	c := sim.ABI
	d := rigtask.Domain{ChainID: sim.ChainID, Contract: sim.Address}
	task := new(big.Int).Lsh(big.NewInt(1), 255)
	answer := answerFromInt(t, 12_345)
	salt := rigtask.Salt{1, 2, 3}

	commitment, _ := rigtask.Commitment(task, 77, answer, salt)
	onChain, err := bind.Call(sim.Contract, nil, c.PackCommitmentHash(task, 77, answer, salt), c.UnpackCommitmentHash)
	if err != nil || common.Hash(onChain) != commitment {
		t.Fatalf("commitmentHash on chain %x, %v; Go %s", onChain, err, commitment.Hex())
	}
	goCommit, _ := d.CommitDigest(task, commitment)
	chainCommit, err := bind.Call(sim.Contract, nil, c.PackCommitDigest(task, commitment), c.UnpackCommitDigest)
	if err != nil || common.Hash(chainCommit) != goCommit {
		t.Fatalf("commitDigest on chain %x, %v; Go %s", chainCommit, err, goCommit.Hex())
	}
	goReveal, _ := d.RevealDigest(task, answer, salt)
	chainReveal, err := bind.Call(sim.Contract, nil, c.PackRevealDigest(task, answer, salt), c.UnpackRevealDigest)
	if err != nil || common.Hash(chainReveal) != goReveal {
		t.Fatalf("revealDigest on chain %x, %v; Go %s", chainReveal, err, goReveal.Hex())
	}
	fee := rigtask.OperatorFee{Operator: sim.Addr(1), Bps: 1500, Payee: sim.Addr(0), Nonce: big.NewInt(3)}
	goFee, _ := d.OperatorFeeDigest(fee)
	abiFee := agentrig.AgentRigOperatorFee{Operator: fee.Operator, Bps: fee.Bps, Payee: fee.Payee, Nonce: fee.Nonce}
	chainFee, err := bind.Call(sim.Contract, nil, c.PackOperatorFeeDigest(abiFee), c.UnpackOperatorFeeDigest)
	if err != nil || common.Hash(chainFee) != goFee {
		t.Fatalf("operatorFeeDigest on chain %x, %v; Go %s", chainFee, err, goFee.Hex())
	}
	// The contract recovers our signature to the operator: setOperatorFee stores the consent.
	sig, err := rigtask.NewKeySigner(sim.Keys[1]).SignDigest(goFee)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Send(0, nil, c.PackSetOperatorFee(abiFee, sig)); err != nil {
		t.Fatalf("setOperatorFee with a Go signature: %v", err)
	}
	stored, err := bind.Call(sim.Contract, nil, c.PackOperatorFees(fee.Operator), c.UnpackOperatorFees)
	if err != nil || stored.Bps != fee.Bps || stored.Payee != fee.Payee {
		t.Fatalf("stored fee %+v, %v", stored, err)
	}
}

// TestEthersAgrees checks digests and signatures against ethers (an independent EIP-712
// implementation in JavaScript). ethers comes from rig/contract's npm packages, which
// scripts/check-contract installs; the test is skipped only when node or they are absent.
func TestEthersAgrees(t *testing.T) {
	nodeBin, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	modules, err := filepath.Abs(filepath.Join("..", "contract", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(modules, "ethers", "package.json")); err != nil {
		t.Skip("rig/contract/node_modules/ethers is absent (run npm ci in rig/contract)")
	}
	s := testSigner(t)
	d := rigtask.Domain{ChainID: big.NewInt(4663), Contract: common.HexToAddress("0x00000000000000000000000000000000000a6e17")}
	type commitCase struct{ Task, Commitment string }
	type revealCase struct{ Task, Answer, Salt string }
	type feeCase struct {
		Operator, Payee, Nonce string
		Bps                    uint16
	}
	in := struct {
		ChainID, Contract, Key string
		Commits                []commitCase
		Reveals                []revealCase
		Fees                   []feeCase
		GoSignatures           []string
	}{ChainID: d.ChainID.String(), Contract: d.Contract.Hex(), Key: testKeyHex}
	maxTask := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	for i, task := range []*big.Int{big.NewInt(1), big.NewInt(123456789), maxTask} {
		c, _ := rigtask.Commitment(task, uint64(i+1), answerFromInt(t, int64(17_712_000_000+i)), rigtask.Salt{byte(i)})
		in.Commits = append(in.Commits, commitCase{task.String(), c.Hex()})
		in.Reveals = append(in.Reveals, revealCase{task.String(), numeric.AnswerHex(answerFromInt(t, int64(i*1000))), hexutil.Encode(bytes.Repeat([]byte{byte(0xa0 + i)}, 32))})
	}
	in.Fees = append(in.Fees, feeCase{s.Address().Hex(), common.HexToAddress("0x0000000000000000000000000000000000000bee").Hex(), "0", 0},
		feeCase{s.Address().Hex(), common.HexToAddress("0x00000000000000000000000000000000000c0ffe").Hex(), maxTask.String(), 10000})
	var digests []common.Hash
	for _, c := range in.Commits {
		task, _ := new(big.Int).SetString(c.Task, 10)
		h, err := d.CommitDigest(task, common.HexToHash(c.Commitment))
		if err != nil {
			t.Fatal(err)
		}
		digests = append(digests, h)
	}
	for _, r := range in.Reveals {
		task, _ := new(big.Int).SetString(r.Task, 10)
		a, _ := numeric.ParseAnswer(r.Answer)
		h, err := d.RevealDigest(task, a, rigtask.Salt(common.HexToHash(r.Salt)))
		if err != nil {
			t.Fatal(err)
		}
		digests = append(digests, h)
	}
	for _, f := range in.Fees {
		nonce, _ := new(big.Int).SetString(f.Nonce, 10)
		h, err := d.OperatorFeeDigest(rigtask.OperatorFee{Operator: common.HexToAddress(f.Operator), Bps: f.Bps, Payee: common.HexToAddress(f.Payee), Nonce: nonce})
		if err != nil {
			t.Fatal(err)
		}
		digests = append(digests, h)
	}
	for _, h := range digests {
		sig, err := s.SignDigest(h)
		if err != nil {
			t.Fatal(err)
		}
		in.GoSignatures = append(in.GoSignatures, hexutil.Encode(sig))
	}
	input, _ := json.Marshal(in)

	cmd := exec.Command(nodeBin, "-e", ethersScript)
	cmd.Env = append(os.Environ(), "ETHERS_MODULES="+modules)
	cmd.Stdin = bytes.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var res []struct{ Digest, Signature, Recovered string }
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("ethers output %q: %v", out, err)
	}
	if len(res) != len(digests) {
		t.Fatalf("ethers gave %d results for %d messages", len(res), len(digests))
	}
	for i, want := range digests {
		if res[i].Digest != want.Hex() {
			t.Errorf("message %d: ethers digest %s, Go %s", i, res[i].Digest, want.Hex())
		}
		// Both sides use RFC 6979 deterministic nonces, so the signatures are the same bytes.
		if res[i].Signature != in.GoSignatures[i] {
			t.Errorf("message %d: ethers signature %s, Go %s", i, res[i].Signature, in.GoSignatures[i])
		}
		if res[i].Recovered != s.Address().Hex() {
			t.Errorf("message %d: ethers recovered %s from the Go signature, want %s", i, res[i].Recovered, s.Address().Hex())
		}
	}
}

// ethersScript reads the cases on stdin and prints, for each message in order (commits, reveals,
// fees), ethers' digest, its own signature, and the signer it recovers from Go's signature.
const ethersScript = `
const path = require('path');
const { ethers } = require(path.join(process.env.ETHERS_MODULES, 'ethers'));
let text = '';
process.stdin.on('data', (d) => { text += d; });
process.stdin.on('end', () => {
  const input = JSON.parse(text);
  const domain = { name: 'AgentRig', version: '1', chainId: BigInt(input.ChainID), verifyingContract: input.Contract };
  const types = {
    Commit: { Commit: [{ name: 'taskId', type: 'uint256' }, { name: 'commitment', type: 'bytes32' }] },
    Reveal: { Reveal: [{ name: 'taskId', type: 'uint256' }, { name: 'answer', type: 'bytes32' }, { name: 'salt', type: 'bytes32' }] },
    OperatorFee: { OperatorFee: [{ name: 'operator', type: 'address' }, { name: 'bps', type: 'uint16' }, { name: 'payee', type: 'address' }, { name: 'nonce', type: 'uint256' }] },
  };
  const wallet = new ethers.Wallet(input.Key);
  const messages = [];
  for (const c of input.Commits) messages.push([types.Commit, { taskId: BigInt(c.Task), commitment: c.Commitment }]);
  for (const r of input.Reveals) messages.push([types.Reveal, { taskId: BigInt(r.Task), answer: r.Answer, salt: r.Salt }]);
  for (const f of input.Fees) messages.push([types.OperatorFee, { operator: f.Operator, bps: f.Bps, payee: f.Payee, nonce: BigInt(f.Nonce) }]);
  const out = messages.map(([t, v], i) => {
    const digest = ethers.TypedDataEncoder.hash(domain, t, v);
    const signature = wallet.signingKey.sign(digest).serialized;
    const recovered = ethers.verifyTypedData(domain, t, v, input.GoSignatures[i]);
    return { Digest: digest, Signature: signature, Recovered: recovered };
  });
  process.stdout.write(JSON.stringify(out));
});
`

func answerFromInt(t *testing.T, v int64) numeric.Answer {
	t.Helper()
	a, err := numeric.NumericAnswer(big.NewInt(v))
	if err != nil {
		t.Fatal(err)
	}
	return a
}
