package main

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/pricerig/pricerig/numeric"
	"github.com/pricerig/pricerig/rig/task"
)

const (
	signTestKey      = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
	signTestContract = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
)

func signTestEnv(t *testing.T) common.Address {
	t.Helper()
	t.Setenv("PRICERIG_TEST_OPERATOR_KEY", "0x"+signTestKey)
	s, err := task.ParseKeyHex(signTestKey)
	if err != nil {
		t.Fatal(err)
	}
	return s.Address()
}

func TestSignCommands(t *testing.T) {
	operator := signTestEnv(t)
	d := task.Domain{ChainID: big.NewInt(4663), Contract: common.HexToAddress(signTestContract)}
	common3 := []string{"--key-env", "PRICERIG_TEST_OPERATOR_KEY", "--chain-id", "4663", "--contract", signTestContract}
	salt := task.Salt{31: 9}
	saltHex := hexutil.Encode(salt[:])
	answer, _ := numeric.ParseAnswer("17712000000")
	commitment, _ := task.Commitment(big.NewInt(7), 2, answer, salt)
	payee := common.HexToAddress("0x00000000000000000000000000000000000000Be")

	commitDigest, _ := d.CommitDigest(big.NewInt(7), commitment)
	revealDigest, _ := d.RevealDigest(big.NewInt(7), answer, salt)
	feeDigest, _ := d.OperatorFeeDigest(task.OperatorFee{Operator: operator, Bps: 250, Payee: payee, Nonce: big.NewInt(1)})

	tests := []struct {
		name       string
		args       []string
		digest     common.Hash
		commitment string
	}{
		{"commit from the commitment", []string{"commit", "--task", "7", "--commitment", commitment.Hex()}, commitDigest, ""},
		{"commit from its parts", []string{"commit", "--task", "7", "--rig", "2", "--answer", "17712000000", "--salt", saltHex}, commitDigest, commitment.Hex()},
		{"reveal", []string{"reveal", "--task", "7", "--answer", "17712000000", "--salt", saltHex}, revealDigest, ""},
		{"operator fee", []string{"operator-fee", "--bps", "250", "--payee", payee.Hex(), "--nonce", "1"}, feeDigest, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{"sign"}, tc.args[0]), append(common3, tc.args[1:]...)...)
			code, out, stderr := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if strings.Contains(strings.ToLower(out+stderr), signTestKey) {
				t.Fatal("the private key was printed")
			}
			var got signOutput
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err)
			}
			if got.Digest != tc.digest.Hex() || got.Signer != operator.Hex() || got.Commitment != tc.commitment {
				t.Fatalf("got %+v, want digest %s signer %s commitment %q", got, tc.digest.Hex(), operator.Hex(), tc.commitment)
			}
			sig, err := hexutil.Decode(got.Signature)
			if err != nil || len(sig) != 65 {
				t.Fatalf("signature %q: %v", got.Signature, err)
			}
			if err := task.Verify(tc.digest, sig, operator); err != nil {
				t.Fatalf("signature does not verify: %v", err)
			}
		})
	}
}

func TestSignCommandsBadInput(t *testing.T) {
	signTestEnv(t)
	t.Setenv("PRICERIG_TEST_BAD_KEY", "0xnot-a-key-but-secret-text")
	base := func(extra ...string) []string {
		return append([]string{"--key-env", "PRICERIG_TEST_OPERATOR_KEY", "--chain-id", "4663", "--contract", signTestContract}, extra...)
	}
	c := "0x" + strings.Repeat("cd", 32)
	tests := []struct {
		name string
		args []string
		has  string
	}{
		{"no message type", []string{"sign"}, "message type"},
		{"unknown message type", []string{"sign", "transfer"}, ""},
		{"unset key variable", []string{"sign", "commit", "--key-env", "PRICERIG_TEST_UNSET", "--chain-id", "1", "--contract", signTestContract, "--task", "1", "--commitment", c}, "PRICERIG_TEST_UNSET"},
		{"bad key", []string{"sign", "commit", "--key-env", "PRICERIG_TEST_BAD_KEY", "--chain-id", "1", "--contract", signTestContract, "--task", "1", "--commitment", c}, "PRICERIG_TEST_BAD_KEY"},
		{"both commitment and parts", append([]string{"sign", "commit"}, base("--task", "1", "--commitment", c, "--answer", "1")...), "not both"},
		{"parts incomplete", append([]string{"sign", "commit"}, base("--task", "1", "--answer", "1", "--salt", c)...), "--rig"},
		{"neither", append([]string{"sign", "commit"}, base("--task", "1")...), "--commitment"},
		{"chain id zero", []string{"sign", "commit", "--key-env", "PRICERIG_TEST_OPERATOR_KEY", "--chain-id", "0", "--contract", signTestContract, "--task", "1", "--commitment", c}, "chain-id"},
		{"bad checksum", []string{"sign", "commit", "--key-env", "PRICERIG_TEST_OPERATOR_KEY", "--chain-id", "1", "--contract", "0x5fbDB2315678afecb367f032d93F642f64180aa3", "--task", "1", "--commitment", c}, "checksum"},
		{"short contract", []string{"sign", "commit", "--key-env", "PRICERIG_TEST_OPERATOR_KEY", "--chain-id", "1", "--contract", "0x1234", "--task", "1", "--commitment", c}, "--contract"},
		{"reveal without salt", append([]string{"sign", "reveal"}, base("--task", "1", "--answer", "1")...), "salt"},
		{"fee over 10000", append([]string{"sign", "operator-fee"}, base("--bps", "10001", "--payee", signTestContract, "--nonce", "1")...), "10000"},
		{"fee bad payee", append([]string{"sign", "operator-fee"}, base("--bps", "1", "--payee", "bob", "--nonce", "1")...), "--payee"},
		{"fee bad nonce", append([]string{"sign", "operator-fee"}, base("--bps", "1", "--payee", signTestContract, "--nonce", "1.5")...), "--nonce"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, tc.args...)
			if code != exitBadInput || out != "" {
				t.Fatalf("exit %d stdout %q stderr %q", code, out, stderr)
			}
			if !strings.Contains(stderr, tc.has) {
				t.Fatalf("stderr %q lacks %q", stderr, tc.has)
			}
			if strings.Contains(stderr, "secret-text") || strings.Contains(strings.ToLower(stderr), signTestKey) {
				t.Fatalf("stderr shows a key: %q", stderr)
			}
		})
	}
}
